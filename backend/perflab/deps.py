"""Request dependencies: the unit of work, who is calling, and validated path objects.

Handlers declare what they need (`db: SessionDep, user: CurrentUser, project: ReadableProject`)
and every access rule lives here, so no route can forget one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import security
from perflab.auth import service as auth_service
from perflab.auth.models import User, UserSession
from perflab.db import touch_row, unit_of_work
from perflab.errors import Forbidden, NotFound, Unauthorized
from perflab.projects.models import Project
from perflab.tokens.models import AgentToken

SESSION_COOKIE = "perflab_session"
CSRF_COOKIE = "perflab_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


def get_db() -> Iterator[Session]:
    with unit_of_work() as session:
        yield session


# scope="function": commit before the response is sent, so a 2xx always means "committed".
SessionDep = Annotated[Session, Depends(get_db, scope="function")]


@dataclass
class Principal:
    """Whoever is calling: a logged-in user (cookie) or an agent token (bearer)."""

    user: User | None = None
    user_session: UserSession | None = None
    token: AgentToken | None = None

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


def get_principal(request: Request, db: SessionDep) -> Principal:
    _refuse_token_in_query(request)
    bearer = _bearer(request)
    if bearer is not None:
        token = db.scalar(select(AgentToken).where(AgentToken.token_hash == security.token_hash(bearer)))
        if token is None or token.revoked_at is not None:
            raise Unauthorized("invalid or revoked token")
        # Every request of an agent passes here: never wait on the token row's lock (issue 9).
        touch_row(db, AgentToken, row_id=token.id, column="last_used_at", resolution=timedelta(seconds=30))
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
    return Principal(user=user, user_session=user_session)


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


def _require_scope(principal: Principal, project: Project, scope: str) -> None:
    if principal.user is not None:
        return
    token = principal.token
    assert token is not None
    if token.project_id != project.id:
        # Don't reveal that another project exists.
        raise NotFound(f"no project {project.slug!r}")
    if scope not in token.scopes:
        raise Forbidden(f"this token lacks the {scope!r} scope")


def _project_by_slug(db: Session, slug: str) -> Project:
    project = db.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project {slug!r}")
    return project


def readable_project(slug: str, principal: PrincipalDep, db: SessionDep) -> Project:
    project = _project_by_slug(db, slug)
    _require_scope(principal, project, "read")
    return project


def writable_project(slug: str, principal: PrincipalDep, db: SessionDep) -> Project:
    """Writes by users (members may write any project) or by ingest-scoped tokens of that project."""
    project = _project_by_slug(db, slug)
    _require_scope(principal, project, "ingest")
    return project


ReadableProject = Annotated[Project, Depends(readable_project)]
WritableProject = Annotated[Project, Depends(writable_project)]


def check_project_access(principal: Principal, project: Project, scope: str) -> None:
    """For routes that find the project through another object (a run, an experiment)."""
    _require_scope(principal, project, scope)


def ingest_token(principal: PrincipalDep) -> AgentToken:
    if principal.token is None:
        raise Forbidden("agent routes need an agent token (Authorization: Bearer plb_...)")
    if "ingest" not in principal.token.scopes:
        raise Forbidden("this token lacks the 'ingest' scope")
    return principal.token


IngestToken = Annotated[AgentToken, Depends(ingest_token)]


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
            token = db.scalar(select(AgentToken).where(AgentToken.token_hash == security.token_hash(value.strip())))
            return token is not None and token.revoked_at is None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie or "")
        except CookieError:
            return False
        morsel = jar.get(SESSION_COOKIE)
        return morsel is not None and auth_service.session_user(db, token=morsel.value) is not None
