"""Delete and restore runs, experiments and profiles (members and owners; not agent tokens), and the
project's trash."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter

from perflab.deps import (
    CurrentUser,
    OneHopRoute,
    PrincipalDep,
    ReadableProject,
    SessionDep,
    check_project_access,
    project_by_id,
)
from perflab.errors import Conflict
from perflab.experiments import service as experiments_service
from perflab.profiles import service as profiles_service
from perflab.runs.router import run_with_access
from perflab.trash import service
from perflab.trash.schemas import TrashItem

router = APIRouter(tags=["trash"], route_class=OneHopRoute)


def _item(kind: str, ident: Any, name: str, experiment_id: int, experiment_name: str, run_id: Any,
          deleted_at: datetime | None) -> TrashItem:
    if deleted_at is None:
        raise Conflict(f"{kind} {ident} is not in the trash")
    return TrashItem(kind=kind, id=str(ident), name=name, experiment_id=experiment_id,  # type: ignore[arg-type]
                     experiment_name=experiment_name, run_id=None if run_id is None else str(run_id),
                     deleted_at=deleted_at, purge_at=service.purge_at(deleted_at))


def _run_item(db: Any, run: Any) -> TrashItem:
    exp = experiments_service.get_experiment(db, experiment_id=run.experiment_id)
    return _item("run", run.id, run.label or f"run {str(run.id)[:8]}", exp.id, exp.name, run.id, run.deleted_at)


@router.delete("/api/runs/{run_id}", response_model=TrashItem)
def delete_run(run_id: str, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    """Puts the run (and its profiles) in the project's trash: hidden, out of every statistic, restorable
    for 30 days with POST .../restore, then purged."""
    run = run_with_access(db, principal, run_id, "write")
    return _run_item(db, service.delete_run(db, run=run))


@router.post("/api/runs/{run_id}/restore", response_model=TrashItem)
def restore_run(run_id: str, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    """Brings the run back from the trash, with the profiles deleted with it. Answers what was restored."""
    run = run_with_access(db, principal, run_id, "write")
    item = _run_item(db, run)
    service.restore_run(db, run=run)
    return item


def _experiment(db: Any, principal: Any, experiment_id: int) -> Any:
    exp = experiments_service.get_experiment(db, experiment_id=experiment_id)
    check_project_access(principal, project_by_id(db, exp.project_id), "write",
                         missing=f"no experiment {experiment_id}")
    return exp


@router.delete("/api/experiments/{experiment_id}", response_model=TrashItem)
def delete_experiment(experiment_id: int, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    """Puts the experiment and its runs in the trash (restorable together for 30 days)."""
    exp = service.delete_experiment(db, experiment=_experiment(db, principal, experiment_id))
    return _item("experiment", exp.id, exp.name, exp.id, exp.name, None, exp.deleted_at)


@router.post("/api/experiments/{experiment_id}/restore", response_model=TrashItem)
def restore_experiment(experiment_id: int, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    exp = _experiment(db, principal, experiment_id)
    item = _item("experiment", exp.id, exp.name, exp.id, exp.name, None, exp.deleted_at)
    service.restore_experiment(db, experiment=exp)
    return item


def _profile(db: Any, principal: Any, profile_id: str) -> Any:
    row = profiles_service.get_profile(db, profile_id=profiles_service.parse_profile_id(profile_id))
    check_project_access(principal, profiles_service.project_of(db, profile=row), "write",
                         missing=f"no profile {row.id}")
    return row


def _profile_item(db: Any, row: Any) -> TrashItem:
    ctx = profiles_service.context(db, profile=row)
    return _item("profile", row.id, row.name, ctx["experiment_id"] or 0, ctx["experiment_name"] or "", row.run_id,
                 row.deleted_at)


@router.delete("/api/profiles/{profile_id}", response_model=TrashItem)
def delete_profile(profile_id: str, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    """Puts the profile in the trash (restorable for 30 days)."""
    row = service.delete_profile(db, profile=_profile(db, principal, profile_id))
    return _profile_item(db, row)


@router.post("/api/profiles/{profile_id}/restore", response_model=TrashItem)
def restore_profile(profile_id: str, principal: PrincipalDep, _: CurrentUser, db: SessionDep) -> TrashItem:
    row = _profile(db, principal, profile_id)
    item = _profile_item(db, row)
    service.restore_profile(db, profile=row)
    return item


@router.get("/api/projects/{slug}/trash", response_model=list[TrashItem])
def list_trash(project: ReadableProject, db: SessionDep) -> list[TrashItem]:
    """What was deleted in the last 30 days, newest first; each restorable until its `purge_at`."""
    return [TrashItem(**i) for i in service.list_trash(db, project=project)]
