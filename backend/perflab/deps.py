"""Request dependencies: the unit of work, who is calling, and validated path objects.

Handlers declare what they need (`db: SessionDep, user: CurrentUser, project: ReadableProject`)
and every access rule lives here, so no route can forget one.

Access to a project: admins everything; other users by their role in it (viewer reads, member
writes, owner manages members, tokens, settings and deletion); agent tokens by scope, in their own
project only. A project someone cannot read answers 404, never 403, so its existence does not leak.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, ParamSpec, Protocol, TypeVar

from fastapi import Depends, Request
from fastapi.routing import APIRoute
from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import security
from perflab.auth import service as auth_service
from perflab.auth.models import User, UserSession
from perflab.db import touch_row, unit_of_work
from perflab.errors import Forbidden, NotFound, Unauthorized
from perflab.members import service as members_service
from perflab.members.models import ProjectMember
from perflab.projects.models import Project
from perflab.tokens import service as tokens_service
from perflab.tokens.models import AgentToken
from perflab.tokens.service import TokenRef

SESSION_COOKIE = "perflab_session"
CSRF_COOKIE = "perflab_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def get_db() -> Iterator[Session]:
    with unit_of_work() as session:
        yield session


# scope="function": commit before the response is sent, so a 2xx always means "committed".
SessionDep = Annotated[Session, Depends(get_db, scope="function")]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def releases_connection(dependency: Callable[_P, _R]) -> Callable[_P, _R]:
    """For a dependency that reads through the request's session: commit before returning, which gives
    the pooled connection back (and any "last seen" row lock with it).

    FastAPI runs each sync dependency and then the route in separate hops of one thread pool (40
    threads), and the pool has 30 connections. A request that kept its connection between two hops
    could wait for a thread while every thread waited for a connection: 300 concurrent agent GETs
    answered 11 times, 195 503s after the 10 s pool timeout, 94 client timeouts at 60 s (the join
    storm test failed on this in CI). An async route awaiting a request body or a long poll held one
    the whole time. Loaded objects stay usable: sessions do not expire them on commit.
    """

    @functools.wraps(dependency)
    def released(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        result = dependency(*args, **kwargs)
        for value in kwargs.values():
            if isinstance(value, Session):
                value.commit()
        return result

    released.releases_connection = True  # type: ignore[attr-defined]  # checked by tests/backend/test_pool_exhaustion.py
    return released


class OneHopRoute(APIRoute):
    """Every router's route class: a sync route commits its session before returning, like the
    dependencies above, because FastAPI validates its response in another thread hop afterwards."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not inspect.iscoroutinefunction(endpoint):
            endpoint = releases_connection(endpoint)
        super().__init__(path, endpoint, **kwargs)


@dataclass
class Principal:
    """Whoever is calling: a logged-in user (cookie) or an agent token (bearer)."""

    user: User | None = None
    user_session: UserSession | None = None
    token: TokenRef | None = None
    # {project_id: role} for users, loaded once per request.
    roles: dict[int, str] = field(default_factory=dict)

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user.role == "admin"


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized("the Authorization header must be 'Bearer <token>'")
    return value.strip()


def _refuse_token_in_query(request: Request) -> None:
    for name in ("token", "access_token", "api_key", "apikey"):
        if name in request.query_params:
            raise Unauthorized("tokens are not accepted in the URL; send 'Authorization: Bearer <token>'")


def principal_of(request: Request, db: Session) -> Principal:
    """Who is calling, read through ``db`` without ending its transaction: a route that stores in the
    same transaction (agent batches) checks its caller and writes in one round of the pool."""
    _refuse_token_in_query(request)
    bearer = _bearer(request)
    if bearer is not None:
        token = tokens_service.live_token(db, secret=bearer)
        if token is None:
            raise Unauthorized("invalid or revoked token")
        # Every request of an agent passes here: never wait on the token row's lock (issue 9).
        touch_row(db, AgentToken, row_id=token.id, column="last_used_at", resolution=timedelta(seconds=30),
                  seen=token.last_used_at)
        return Principal(token=token)
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        raise Unauthorized("log in first")
    found = auth_service.session_user(db, token=cookie)
    if found is None:
        raise Unauthorized("your session has expired; log in again")
    user, user_session = found
    if request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent or not security.constant_time_equal(sent, user_session.csrf_token):
            raise Forbidden("missing or wrong CSRF token (send the X-CSRF-Token header)")
    return Principal(user=user, user_session=user_session, roles=members_service.roles_of(db, user_id=user.id))


@releases_connection
def get_principal(request: Request, db: SessionDep) -> Principal:
    return principal_of(request, db)


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def get_current_user(principal: PrincipalDep) -> User:
    if principal.user is None:
        raise Forbidden("this route needs a logged-in user, not an agent token")
    return principal.user


CurrentUser = Annotated[User, Depends(get_current_user)]


def get_admin(user: CurrentUser) -> User:
    if user.role != "admin":
        raise Forbidden("this needs an admin")
    return user


AdminUser = Annotated[User, Depends(get_admin)]


# What each need asks of a role, and which token scope stands for it.
_ROLE_RANK = {"viewer": 1, "member": 2, "owner": 3}
_NEED_RANK = {"read": 1, "write": 2, "ingest": 2, "owner": 3}
_NEED_SCOPE = {"read": "read", "write": "ingest", "ingest": "ingest"}


def role_in(principal: Principal, project: Project) -> str | None:
    """The caller's role in a project: "admin", "owner", "member", "viewer", or None (not visible)."""
    if principal.is_admin:
        return "admin"
    return principal.roles.get(project.id)


def check_project_access(principal: Principal, project: Project, need: str, *, missing: str | None = None) -> None:
    """need: "read", "write" ("ingest" for tokens is the same) or "owner". ``missing`` is the 404 text,
    e.g. "no run X" for routes that reach the project through a run, so it reads like that object is
    absent; the default names nothing, so an id never reveals which project holds it."""
    not_found = NotFound(missing or "not found")
    if principal.user is not None:
        role = role_in(principal, project)
        if role is None:
            raise not_found
        if role != "admin" and _ROLE_RANK[role] < _NEED_RANK[need]:
            wanted = "an owner" if need == "owner" else "a member or an owner"
            raise Forbidden(f"you are a {role} of {project.slug!r}; this needs {wanted}")
        return
    token = principal.token
    assert token is not None
    if token.project_id != project.id:
        raise not_found
    if need == "owner":
        raise Forbidden("agent tokens cannot manage a project; log in as one of its owners")
    scope = _NEED_SCOPE[need]
    if scope not in token.scopes:
        raise Forbidden(f"this token lacks the {scope!r} scope")


def caller_ref(principal: Principal) -> tuple[str, int]:
    """("token", id) or ("session", id): who is calling, by id, to check again later (still_read)."""
    if principal.token is not None:
        return "token", principal.token.id
    assert principal.user_session is not None
    return "session", principal.user_session.id


Caller = tuple[str, int]


def still_read(db: Session, pairs: Iterable[tuple[Caller, int]]) -> set[tuple[Caller, int]]:
    """Which (caller, project id) pairs of long-lived responses (live-update streams) may still read:
    the session not ended or expired, the user still active and a member (or an admin), the token not
    revoked. Checked again while streaming, so removing a member cuts their open streams too; two
    queries whatever the number of pairs (every open stream of a process is checked at once)."""
    pairs = set(pairs)
    tokens = {ident for (kind, ident), _ in pairs if kind == "token"}
    sessions = {ident for (kind, ident), _ in pairs if kind == "session"}
    token_project: dict[int, int] = {}
    if tokens:
        token_project = {token_id: project_id for token_id, project_id in db.execute(
            select(AgentToken.id, AgentToken.project_id).where(
                AgentToken.id.in_(tokens), AgentToken.revoked_at.is_(None))).all()}
    admins: set[int] = set()
    reads: set[tuple[int, int]] = set()  # (session id, project id)
    if sessions:
        rows = db.execute(
            select(UserSession.id, User.role, ProjectMember.project_id)
            .join(User, User.id == UserSession.user_id)
            .outerjoin(ProjectMember, ProjectMember.user_id == User.id)
            .where(UserSession.id.in_(sessions), UserSession.expires_at > datetime.now(UTC), User.is_active)
        ).all()
        for session_id, role, project_id in rows:
            if role == "admin":
                admins.add(session_id)
            if project_id is not None:
                reads.add((session_id, project_id))

    def may_read(caller: Caller, project_id: int) -> bool:
        kind, ident = caller
        if kind == "token":
            return token_project.get(ident) == project_id
        return ident in admins or (ident, project_id) in reads

    return {pair for pair in pairs if may_read(*pair)}


def _project_by_slug(db: Session, slug: str) -> Project:
    project = db.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project {slug!r}")
    return project


def project_by_id(db: Session, project_id: int) -> Project:
    project = db.get(Project, project_id)
    assert project is not None  # every object's project_id is a foreign key
    return project


@releases_connection
def readable_project(slug: str, principal: PrincipalDep, db: SessionDep) -> Project:
    project = _project_by_slug(db, slug)
    check_project_access(principal, project, "read", missing=f"no project {slug!r}")
    return project


@releases_connection
def writable_project(slug: str, principal: PrincipalDep, db: SessionDep) -> Project:
    """Writes by members and owners, or by ingest-scoped tokens of that project."""
    project = _project_by_slug(db, slug)
    check_project_access(principal, project, "write", missing=f"no project {slug!r}")
    return project


@releases_connection
def owned_project(slug: str, principal: PrincipalDep, db: SessionDep) -> Project:
    """Members, tokens and settings: owners (and admins) only."""
    project = _project_by_slug(db, slug)
    check_project_access(principal, project, "owner", missing=f"no project {slug!r}")
    return project


ReadableProject = Annotated[Project, Depends(readable_project)]
WritableProject = Annotated[Project, Depends(writable_project)]
OwnedProject = Annotated[Project, Depends(owned_project)]


class _InProject(Protocol):
    project_id: Any


_Row = TypeVar("_Row", bound=_InProject)


def owned_row(model: type[_Row], *, id_param: str, noun: str) -> Callable[..., _Row]:
    """The dependency of `/api/<things>/{id_param}` routes that only a project's owners may use (tokens,
    webhooks): the row, or a 404 "no <noun> N" alike for a missing row and one of a project the caller
    does not own, so an id's existence does not leak."""

    @releases_connection
    def dependency(principal: Principal, db: Session, **path: int) -> _Row:
        row_id = path[id_param]
        row = db.get(model, row_id)
        if row is None:
            raise NotFound(f"no {noun} {row_id}")
        check_project_access(principal, project_by_id(db, row.project_id), "owner", missing=f"no {noun} {row_id}")
        return row

    # FastAPI reads the parameters from the signature: the path parameter keeps the route's own name.
    kw = inspect.Parameter.KEYWORD_ONLY
    dependency.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(id_param, kw, annotation=int),
        inspect.Parameter("principal", kw, annotation=PrincipalDep),
        inspect.Parameter("db", kw, annotation=SessionDep),
    ], return_annotation=model)
    return dependency


def ingest_token(principal: PrincipalDep) -> TokenRef:
    if principal.token is None:
        raise Forbidden("agent routes need an agent token (Authorization: Bearer plb_...)")
    if "ingest" not in principal.token.scopes:
        raise Forbidden("this token lacks the 'ingest' scope")
    return principal.token


IngestToken = Annotated[TokenRef, Depends(ingest_token)]


def credentials_valid(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether a request carries a live agent token or session, for the body-size middleware.

    Only decides how many bytes the caller may send before the route runs; the route's own
    dependencies still check CSRF, scopes and project access.
    """
    from http.cookies import CookieError, SimpleCookie

    auth = cookie = None
    for k, v in headers:
        if k == b"authorization":
            auth = v.decode("latin-1")
        elif k == b"cookie":
            cookie = v.decode("latin-1")
    if auth is None and cookie is None:
        return False
    with unit_of_work() as db:
        if auth is not None:
            scheme, _, value = auth.partition(" ")
            if scheme.lower() != "bearer" or not value.strip():
                return False
            return tokens_service.live_token(db, secret=value.strip()) is not None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie or "")
        except CookieError:
            return False
        morsel = jar.get(SESSION_COOKIE)
        return morsel is not None and auth_service.session_user(db, token=morsel.value) is not None
