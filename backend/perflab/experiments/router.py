from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query

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
)
from perflab.experiments import service
from perflab.experiments.models import Experiment
from perflab.experiments.schemas import (
    ExperimentCreate,
    ExperimentHeadline,
    ExperimentListItem,
    ExperimentPage,
    ExperimentRead,
    ExperimentUpdate,
)
from perflab.projects.models import Project
from perflab.schemas_base import Page, PageSize

router = APIRouter(tags=["experiments"], route_class=OneHopRoute)


@releases_connection
def readable_experiment(experiment_id: int, principal: PrincipalDep, db: SessionDep) -> Experiment:
    exp = service.get_experiment(db, experiment_id=experiment_id)
    project = db.get(Project, exp.project_id)
    assert project is not None
    check_project_access(principal, project, "read", missing=f"no experiment {experiment_id}")
    return service.live(exp)


@releases_connection
def writable_experiment(experiment_id: int, principal: PrincipalDep, db: SessionDep) -> Experiment:
    exp = service.get_experiment(db, experiment_id=experiment_id)
    check_project_access(principal, project_by_id(db, exp.project_id), "write",
                         missing=f"no experiment {experiment_id}")
    return service.live(exp)


ReadableExperiment = Annotated[Experiment, Depends(readable_experiment)]
WritableExperiment = Annotated[Experiment, Depends(writable_experiment)]


def list_item(row: dict) -> ExperimentListItem:  # type: ignore[type-arg]
    return ExperimentListItem(
        **ExperimentRead.model_validate(row["experiment"]).model_dump(),
        run_count=row["run_count"],
        running_count=row["running_count"],
        invalid_runs=row["invalid_runs"],
        excluded_runs=row.get("excluded_runs", 0),
        last_run_at=row["last_run_at"],
        headline=ExperimentHeadline(**row["headline"]),
        decision=row.get("decision"),
    )


@router.get("/api/projects/{slug}/experiments", response_model=ExperimentPage)
def list_experiments(
    project: ReadableProject,
    db: SessionDep,
    page: Page = 1,
    page_size: PageSize = 50,
    sort: str = "created",
    order: str = "desc",
    q: str | None = None,
    tag: Annotated[list[str] | None, Query()] = None,
    status: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    decision: str | None = None,
    include_archived: bool = False,
) -> ExperimentPage:
    """Archived experiments are left out unless `include_archived=true` (or `status=archived`)."""
    result = service.history(
        db, project=project, page=page, page_size=page_size, sort=sort, order=order, q=q, tags=tag,
        status=status, created_after=created_after, created_before=created_before, decision=decision,
        include_archived=include_archived,
    )
    return ExperimentPage(
        items=[list_item(r) for r in result["items"]],
        total=result["total"], page=result["page"], page_size=result["page_size"], tags=result["tags"],
    )


@router.post("/api/projects/{slug}/experiments", response_model=ExperimentRead, status_code=201)
def create_experiment(body: ExperimentCreate, project: WritableProject, _: CurrentUser, db: SessionDep) -> ExperimentRead:
    return ExperimentRead.model_validate(
        service.create_experiment(
            db, project=project, name=body.name, hypothesis=body.hypothesis, tags=body.tags, status=body.status
        )
    )


@router.get("/api/experiments/{experiment_id}", response_model=ExperimentRead)
def get_experiment(experiment: ReadableExperiment) -> ExperimentRead:
    return ExperimentRead.model_validate(experiment)


@router.patch("/api/experiments/{experiment_id}", response_model=ExperimentRead)
def update_experiment(
    body: ExperimentUpdate, experiment: WritableExperiment, _: CurrentUser, db: SessionDep
) -> ExperimentRead:
    return ExperimentRead.model_validate(
        service.update_experiment(db, experiment=experiment, changes=body.model_dump(exclude_unset=True))
    )
