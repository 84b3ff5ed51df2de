"""Saved comparisons for members, share links, and the public read-only share view.

The public routes answer for one comparison only, and every answer (errors included) carries
`Cache-Control: private, no-store`, `Referrer-Policy: no-referrer` and `X-Robots-Tag: noindex`, so a
shared link neither lingers in caches nor leaks through the Referer header nor gets indexed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from perflab.compare import export
from perflab.compare import overlay as compare_overlay
from perflab.compare import service as compare_service
from perflab.compare.router import CSVResponse, MarkdownResponse, attachment
from perflab.compare.schemas import CompareReply, OverlayReply
from perflab.config import get_settings
from perflab.deps import (
    CurrentUser,
    OneHopRoute,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    WritableProject,
    check_project_access,
    project_by_id,
    releases_connection,
    role_in,
)
from perflab.errors import AppError, Forbidden
from perflab.projects.models import Project
from perflab.sharing import service
from perflab.sharing.models import Comparison, ShareLink
from perflab.sharing.schemas import (
    ComparisonCreate,
    ComparisonRead,
    SavedComparison,
    SharedComparison,
    ShareLinkCreate,
    ShareLinkCreated,
    ShareLinkRead,
    ShareView,
    ViewState,
)

SHARE_HEADERS = {
    "Cache-Control": "private, no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
}

router = APIRouter(tags=["comparisons"], route_class=OneHopRoute)


# -- saved comparisons (members) -----------------------------------------------------------------------


@releases_connection
def readable_comparison(short_id: str, principal: PrincipalDep, db: SessionDep) -> Comparison:
    comparison = service.get_comparison(db, short_id=short_id)
    project = db.get(Project, comparison.project_id)
    assert project is not None
    check_project_access(principal, project, "read", missing=f"no comparison {short_id!r}")
    return comparison


@releases_connection
def writable_comparison(short_id: str, principal: PrincipalDep, db: SessionDep) -> Comparison:
    comparison = service.get_comparison(db, short_id=short_id)
    check_project_access(principal, project_by_id(db, comparison.project_id), "write",
                         missing=f"no comparison {short_id!r}")
    return comparison


ReadableComparison = Annotated[Comparison, Depends(readable_comparison)]
WritableComparison = Annotated[Comparison, Depends(writable_comparison)]


def member_url(short_id: str) -> str:
    return f"{get_settings().base_url()}/c/{short_id}"


def _reads(db: SessionDep, comparisons: list[Comparison]) -> list[ComparisonRead]:
    d = service.describe(db, comparisons=comparisons)
    return [
        ComparisonRead(
            id=c.id, short_id=c.short_id, url=member_url(c.short_id), project=d["projects"].get(c.project_id, ""),
            title=c.title, baseline=d["experiments"].get(c.baseline_experiment_id, "?"),
            experiments=[d["experiments"].get(i, "?") for i in c.experiment_ids], run_ids=list(c.run_ids),
            view_state=ViewState.model_validate(c.view_state or {}), created_at=c.created_at,
            created_by=d["users"].get(c.created_by_id) if c.created_by_id is not None else None,
        )
        for c in comparisons
    ]


def _compare(db: SessionDep, comparison: Comparison) -> CompareReply:
    reply = compare_service.compare(db, sel=service.selection(db, comparison=comparison))
    reply.comparison = {"short_id": comparison.short_id, "url": member_url(comparison.short_id)}
    return reply


@router.post("/api/projects/{slug}/comparisons", response_model=ComparisonRead, status_code=201)
def save_comparison(body: ComparisonCreate, project: WritableProject, user: CurrentUser, db: SessionDep
                    ) -> ComparisonRead:
    row = service.save_comparison(db, project=project, user=user, baseline=body.baseline,
                                  experiments=body.experiments, title=body.title,
                                  view_state=body.view_state.model_dump(mode="json"))
    return _reads(db, [row])[0]


@router.get("/api/projects/{slug}/comparisons", response_model=list[ComparisonRead])
def list_comparisons(project: ReadableProject, db: SessionDep) -> list[ComparisonRead]:
    return _reads(db, service.list_comparisons(db, project=project))


@router.get("/api/comparisons/{short_id}", response_model=SavedComparison)
def get_comparison(comparison: ReadableComparison, db: SessionDep) -> SavedComparison:
    return SavedComparison(comparison=_reads(db, [comparison])[0], compare=_compare(db, comparison))


@router.get("/api/comparisons/{short_id}/overlay", response_model=OverlayReply)
def comparison_overlay(
    comparison: ReadableComparison, db: SessionDep, role: str, metric: str, max_points: int = 2000,
    t_start_s: float | None = None, t_end_s: float | None = None,
    runs: Annotated[list[uuid.UUID] | None, Query(max_length=200)] = None,
) -> OverlayReply:
    return compare_overlay.overlay(db, sel=service.selection(db, comparison=comparison), role=role, metric=metric,
                                   max_points=max_points, t_start_s=t_start_s, t_end_s=t_end_s, run_ids=runs)


@router.get("/api/comparisons/{short_id}/export.csv", response_class=CSVResponse)
def comparison_export_csv(comparison: ReadableComparison, db: SessionDep) -> Response:
    return Response(export.to_csv(_compare(db, comparison)), media_type="text/csv; charset=utf-8",
                    headers=attachment(f"comparison-{comparison.short_id}.csv"))


@router.get("/api/comparisons/{short_id}/export.json", response_model=CompareReply)
def comparison_export_json(comparison: ReadableComparison, db: SessionDep) -> Response:
    return Response(_compare(db, comparison).model_dump_json(indent=2), media_type="application/json",
                    headers=attachment(f"comparison-{comparison.short_id}.json"))


@router.get("/api/comparisons/{short_id}/markdown", response_class=MarkdownResponse)
def comparison_markdown(comparison: ReadableComparison, db: SessionDep) -> Response:
    body = export.to_markdown(_compare(db, comparison), link=member_url(comparison.short_id))
    return Response(body, media_type="text/markdown; charset=utf-8")


# -- share links (members) ------------------------------------------------------------------------------


def _link_read(link: ShareLink, comparison: Comparison, emails: dict[int, str], *, can_revoke: bool = True
               ) -> ShareLinkRead:
    return ShareLinkRead(
        id=link.id, comparison_id=comparison.id, comparison_short_id=comparison.short_id,
        comparison_title=comparison.title, hint=link.hint, note=link.note,
        status=service.link_status(link),  # type: ignore[arg-type]
        created_at=link.created_at, expires_at=link.expires_at, revoked_at=link.revoked_at,
        last_used_at=link.last_used_at,
        created_by=emails.get(link.created_by_id) if link.created_by_id is not None else None,
        can_revoke=can_revoke,
    )


@router.post("/api/comparisons/{short_id}/share-links", response_model=ShareLinkCreated, status_code=201)
def create_share_link(body: ShareLinkCreate, comparison: WritableComparison, user: CurrentUser, db: SessionDep
                      ) -> ShareLinkCreated:
    token, link = service.create_share_link(db, comparison=comparison, user=user,
                                            expires_in_days=body.expires_in_days, note=body.note)
    read = _link_read(link, comparison, {user.id: user.email})
    return ShareLinkCreated(**read.model_dump(), token=token, url=f"{get_settings().base_url()}/s/{token}")


@router.get("/api/projects/{slug}/share-links", response_model=list[ShareLinkRead])
def list_share_links(project: ReadableProject, principal: PrincipalDep, user: CurrentUser, db: SessionDep
                     ) -> list[ShareLinkRead]:
    rows = service.list_share_links(db, project=project)
    users = service.describe(db, comparisons=[c for _, c in rows])["users"]
    users |= service.creators(db, links=[link for link, _ in rows])
    role = role_in(principal, project)
    # Revoking needs write access to the project, and then being an owner or the link's creator.
    return [_link_read(link, c, users, can_revoke=role in ("owner", "admin") or
                       (role == "member" and link.created_by_id == user.id))
            for link, c in rows]


@router.delete("/api/share-links/{link_id}", response_model=ShareLinkRead)
def revoke_share_link(link_id: int, principal: PrincipalDep, user: CurrentUser, db: SessionDep) -> ShareLinkRead:
    link, comparison = service.get_share_link(db, link_id=link_id)
    project = db.get(Project, comparison.project_id)
    assert project is not None
    check_project_access(principal, project, "write", missing=f"no share link {link_id}")
    service.revoke_share_link(db, link=link, user=user, owner=role_in(principal, project) in ("owner", "admin"))
    return _link_read(link, comparison, {user.id: user.email})


# -- the public share view ------------------------------------------------------------------------------


class ShareRoute(OneHopRoute):
    """Adds the share headers to every response of the public routes, errors included."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def with_headers(request: Request) -> Response:
            try:
                response = await handler(request)
            except AppError as exc:
                response = JSONResponse({"error": exc.error, "detail": exc.detail}, status_code=exc.status_code,
                                        headers=exc.headers)
            except RequestValidationError as exc:
                detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                          for e in exc.errors()]
                response = JSONResponse({"error": "validation_error", "detail": detail}, status_code=422)
            response.headers.update(SHARE_HEADERS)
            return response

        return with_headers


public_router = APIRouter(tags=["share"], route_class=ShareRoute)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@public_router.get("/api/share/{token}", response_model=ShareView)
def share_view(token: str, request: Request, db: SessionDep) -> ShareView:
    link, comparison = service.open_share_link(db, token=token, client=_client(request))
    # The margins in force when the link was made: a shared "equivalent" stays what was shared.
    reply = compare_service.compare(db, sel=service.selection(db, comparison=comparison), margins=link.margins)
    reply = reply.model_copy(update={"notes": service.frozen_notes(db, reply.notes, comparison=comparison)})
    names = reply.experiments
    return ShareView(
        comparison=SharedComparison(title=comparison.title, baseline=reply.baseline, experiments=names,
                                    view_state=ViewState.model_validate(comparison.view_state or {}),
                                    created_at=comparison.created_at, expires_at=link.expires_at),
        compare=reply,
    )


@public_router.get("/api/share/{token}/overlay", response_model=OverlayReply)
def share_overlay(
    token: str, request: Request, db: SessionDep, role: str, metric: str, max_points: int = 2000,
    t_start_s: float | None = None, t_end_s: float | None = None,
    runs: Annotated[list[uuid.UUID] | None, Query(max_length=200)] = None,
) -> OverlayReply:
    _, comparison = service.open_share_link(db, token=token, client=_client(request))
    sel = service.selection(db, comparison=comparison)
    start, end = service.check_share_overlay(db, comparison=comparison, sel=sel, role=role, metric=metric,
                                             t_start_s=t_start_s, t_end_s=t_end_s, run_ids=runs)
    reply = compare_overlay.overlay(db, sel=sel, role=role, metric=metric, max_points=max_points, t_start_s=start,
                                    t_end_s=end, run_ids=runs)
    return reply.model_copy(update={"notes": service.frozen_notes(db, reply.notes, comparison=comparison)})


@public_router.api_route("/api/share/{token}", methods=["POST", "PUT", "PATCH", "DELETE"], include_in_schema=False)
@public_router.api_route("/api/share/{token}/{rest:path}", methods=["POST", "PUT", "PATCH", "DELETE"],
                         include_in_schema=False)
def share_write(token: str) -> Response:
    # A share link is read-only: say so instead of 405, and never touch the database.
    raise Forbidden("a share link is read-only")
