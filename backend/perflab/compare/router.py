"""Compare experiments of a project. Read-scope agent tokens may call these (`perflab-agent compare`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse, Response

from perflab import stats
from perflab.compare import export, overlay, service, settings
from perflab.compare import selection as selecting
from perflab.compare.schemas import (
    CompareReply,
    OverlayReply,
    SetupNoise,
    VerdictSettingsRead,
    VerdictSettingsUpdate,
)
from perflab.deps import OneHopRoute, OwnedProject, ReadableProject, SessionDep, releases_connection
from perflab.errors import Unprocessable

router = APIRouter(tags=["compare"], route_class=OneHopRoute)

Experiments = Annotated[list[str], Query(max_length=selecting.MAX_EXPERIMENTS,
                                         description="experiment names or ids, repeated")]


@releases_connection
def selection(
    project: ReadableProject, db: SessionDep, experiments: Experiments, baseline: str | None = None,
    include_invalid: Annotated[bool, Query(description="count invalid runs in medians and verdicts")] = False,
) -> selecting.Selection:
    return selecting.select_experiments(db, project=project, baseline=baseline, experiments=experiments,
                                        include_invalid=include_invalid)


SelectionDep = Annotated[selecting.Selection, Depends(selection)]


def attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}


@router.get("/api/projects/{slug}/compare", response_model=CompareReply)
def compare(
    sel: SelectionDep, db: SessionDep,
    look: Annotated[int | None, Query(ge=1, le=stats.MAX_LOOKS, description=(
        "a sequential design's look (perflab-agent run --repeat auto): verdicts at alpha / looks"))] = None,
    looks: Annotated[int | None, Query(ge=1, le=stats.MAX_LOOKS, description="the design's planned looks")] = None,
) -> CompareReply:
    if (look is None) != (looks is None) or (look is not None and looks is not None and look > looks):
        raise Unprocessable("look and looks go together, with look between 1 and looks")
    alpha = stats.ALPHA if look is None or looks is None else stats.look_alpha(look, looks)
    return service.compare(db, sel=sel, alpha=alpha)


@router.get("/api/projects/{slug}/compare/overlay", response_model=OverlayReply)
def compare_overlay(
    sel: SelectionDep, db: SessionDep, role: str, metric: str, max_points: int = 2000,
    t_start_s: float | None = None, t_end_s: float | None = None,
) -> OverlayReply:
    return overlay.overlay(db, sel=sel, role=role, metric=metric, max_points=max_points, t_start_s=t_start_s,
                           t_end_s=t_end_s)


class CSVResponse(PlainTextResponse):
    # So the OpenAPI document says text/csv, which is what the export sends (found by tests/fuzz).
    media_type = "text/csv"


class MarkdownResponse(PlainTextResponse):
    media_type = "text/markdown"


@router.get("/api/projects/{slug}/compare/export.csv", response_class=CSVResponse)
def compare_export_csv(sel: SelectionDep, db: SessionDep) -> Response:
    body = export.to_csv(service.compare(db, sel=sel))
    return Response(body, media_type="text/csv; charset=utf-8", headers=attachment(f"{sel.project.slug}-compare.csv"))


@router.get("/api/projects/{slug}/compare/export.json", response_model=CompareReply)
def compare_export_json(sel: SelectionDep, db: SessionDep) -> Response:
    body = service.compare(db, sel=sel).model_dump_json(indent=2)
    return Response(body, media_type="application/json", headers=attachment(f"{sel.project.slug}-compare.json"))


@router.get("/api/projects/{slug}/compare/markdown", response_class=MarkdownResponse)
def compare_markdown(sel: SelectionDep, db: SessionDep) -> Response:
    return Response(export.to_markdown(service.compare(db, sel=sel)), media_type="text/markdown; charset=utf-8")


@router.get("/api/projects/{slug}/noise", response_model=SetupNoise)
def noise(
    project: ReadableProject, db: SessionDep,
    experiment: Annotated[str, Query(description="experiment name or id")],
    include_invalid: bool = False,
) -> SetupNoise:
    """The noise of one experiment's setup from its repeated runs: per metric and host role, the smallest change
    that n runs a side detect."""
    sel = selecting.select_experiments(db, project=project, baseline=experiment, experiments=[experiment],
                                       include_invalid=include_invalid)
    reply = service.compare(db, sel=sel)
    assert reply.noise is not None
    return reply.noise


def _settings_read(margins: dict[str, float]) -> VerdictSettingsRead:
    return VerdictSettingsRead.model_validate({
        "margins_pct": {k: round(v * 100.0, 4) for k, v in margins.items()},
        "defaults_pct": {k: round(v * 100.0, 4) for k, v in stats.MARGINS.items()}})


@router.get("/api/projects/{slug}/verdict-settings", response_model=VerdictSettingsRead)
def get_verdict_settings(project: ReadableProject, db: SessionDep) -> VerdictSettingsRead:
    """The smallest meaningful change per metric family behind "equivalent" verdicts."""
    return _settings_read(settings.margins(db, project))


@router.put("/api/projects/{slug}/verdict-settings", response_model=VerdictSettingsRead)
def put_verdict_settings(body: VerdictSettingsUpdate, project: OwnedProject, db: SessionDep) -> VerdictSettingsRead:
    """Owners only: change a family's smallest meaningful change (percent), or reset it with null."""
    changes: dict[str, float | None] = {k: None if v is None else v / 100.0 for k, v in body.margins_pct.items()}
    return _settings_read(settings.set_margins(db, project, changes))
