from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from sqlalchemy.orm import Session

from perflab.deps import (
    CurrentUser,
    OneHopRoute,
    Principal,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    check_project_access,
    releases_connection,
)
from perflab.experiments.router import ReadableExperiment
from perflab.ingest import workers as parse_workers
from perflab.projects.models import Project
from perflab.runs import service
from perflab.runs.models import Run
from perflab.runs.schemas import (
    ParseLag,
    RunDetail,
    RunHostRead,
    RunListItem,
    RunPage,
    RunRead,
    RunUpdate,
    StreamRead,
    StreamTail,
    SummaryRead,
)
from perflab.schemas_base import Page, PageSize

router = APIRouter(tags=["runs"], route_class=OneHopRoute)


def run_with_access(db: Session, principal: Principal, run_id: str, need: str) -> Run:
    """The run if the caller may `need` it, in the trash or not."""
    run = service.get_run(db, run_id=service.parse_run_id(run_id))
    project = db.get(Project, run.project_id)
    assert project is not None
    check_project_access(principal, project, need, missing=f"no run {run.id}")
    return run


@releases_connection
def readable_run(run_id: str, principal: PrincipalDep, db: SessionDep) -> Run:
    return service.live(run_with_access(db, principal, run_id, "read"))


@releases_connection
def writable_run(run_id: str, principal: PrincipalDep, db: SessionDep) -> Run:
    return service.live(run_with_access(db, principal, run_id, "write"))


ReadableRun = Annotated[Run, Depends(readable_run)]
WritableRun = Annotated[Run, Depends(writable_run)]


def _page(result: dict) -> RunPage:  # type: ignore[type-arg]
    return RunPage(
        items=[
            RunListItem(**RunRead.model_validate(i["run"]).model_dump(), experiment_name=i["experiment_name"])
            for i in result["items"]
        ],
        total=result["total"],
        page=result["page"],
        page_size=result["page_size"],
    )


@router.get("/api/runs/{run_id}", response_model=RunDetail)
def get_run(run: ReadableRun, db: SessionDep) -> RunDetail:
    d = service.run_detail(db, run=run)
    return RunDetail(
        **RunRead.model_validate(run).model_dump(),
        project_slug=d["project_slug"],
        experiment_name=d["experiment_name"],
        hosts=[RunHostRead(**h) for h in d["hosts"]],
        streams=[StreamRead(**StreamRead.model_validate(s["stream"]).model_dump(exclude={"host"}), host=s["host"])
                 for s in d["streams"]],
        summaries=[SummaryRead.model_validate(s) for s in d["summaries"]],
        parse_lag=ParseLag(**parse_workers.run_lag(db, run_id=run.id)),
    )


@router.patch("/api/runs/{run_id}", response_model=RunRead)
def update_run(body: RunUpdate, run: WritableRun, _: CurrentUser, db: SessionDep) -> RunRead:
    """Exclude the run from every statistic (`{"excluded": true, "excluded_reason": "..."}`), include it
    again (`{"excluded": false}`), or rename its hosts' roles (`{"roles": {"target": "proxy"}}`)."""
    return RunRead.model_validate(service.update_run(db, run=run, changes=body.model_dump(exclude_unset=True)))


@router.get("/api/experiments/{experiment_id}/runs", response_model=RunPage)
def list_experiment_runs(experiment: ReadableExperiment, db: SessionDep, page: Page = 1, page_size: PageSize = 100) -> RunPage:
    project = db.get(Project, experiment.project_id)
    assert project is not None
    return _page(service.list_runs(db, project=project, experiment_id=experiment.id, page=page, page_size=page_size))


@router.get("/api/projects/{slug}/runs", response_model=RunPage)
def list_project_runs(
    project: ReadableProject, db: SessionDep, status: str | None = None, page: Page = 1, page_size: PageSize = 50
) -> RunPage:
    return _page(service.list_runs(db, project=project, status=status, page=page, page_size=page_size))




@router.get("/api/projects/{slug}/roles", response_model=list[str])
def project_roles(project: ReadableProject, db: SessionDep) -> list[str]:
    """Host roles the project's runs use, most used first (the Import page offers them)."""
    return service.project_roles(db, project=project)


@router.get("/api/runs/{run_id}/streams/{stream_id}/tail", response_model=StreamTail)
def stream_tail(run: ReadableRun, stream_id: int, db: SessionDep, lines: int = 50) -> StreamTail:
    """The newest raw lines of a stream (e.g. wrk's output while the run is live)."""
    return StreamTail(**service.stream_tail(db, run=run, stream_id=stream_id, lines=lines))
