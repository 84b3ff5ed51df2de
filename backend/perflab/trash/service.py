"""Soft delete: runs, experiments and profiles go to the project's trash, restorable for RETENTION, then
purged by a sweep.

Deleting an experiment puts its live runs (and their profiles) in the trash at the same instant, and
deleting a run its profiles; restoring brings back exactly what went with it (same `deleted_at`), so a
run deleted on its own before its experiment stays in the trash. Everything that reads for a user filters
`deleted_at IS NULL`; statistics also leave out excluded runs (`Run.counted()` in runs/models.py).
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from perflab.db import unit_of_work
from perflab.errors import Conflict, NotFound
from perflab.experiments.models import Experiment
from perflab.models_base import utcnow
from perflab.profiles.models import Profile
from perflab.projects.models import Project
from perflab.runs.models import Run

log = logging.getLogger(__name__)

RETENTION = timedelta(days=30)


def purge_at(deleted_at: datetime) -> datetime:
    return deleted_at + RETENTION


def _check_restorable(kind: str, ident: Any, deleted_at: datetime | None, now: datetime) -> None:
    if deleted_at is None:
        raise Conflict(f"{kind} {ident} is not in the trash")
    if purge_at(deleted_at) <= now:
        raise NotFound(f"{kind} {ident} was deleted more than {RETENTION.days} days ago and is gone")


def delete_profile(session: Session, *, profile: Profile) -> Profile:
    if profile.deleted_at is None:
        profile.deleted_at = utcnow()
        session.flush()
    return profile


def restore_profile(session: Session, *, profile: Profile) -> Profile:
    _check_restorable("profile", profile.id, profile.deleted_at, utcnow())
    run = session.get(Run, profile.run_id)
    if run is not None and run.deleted_at is not None:
        raise Conflict(f"profile {profile.id} belongs to run {run.id}, which is in the trash: restore the run")
    profile.deleted_at = None
    session.flush()
    return profile


def _trash_runs(session: Session, *, where: Any, at: datetime) -> None:
    live = select(Run.id).where(where, Run.deleted_at.is_(None))
    session.execute(update(Profile).where(Profile.run_id.in_(live), Profile.deleted_at.is_(None))
                    .values(deleted_at=at).execution_options(synchronize_session=False))
    session.execute(update(Run).where(where, Run.deleted_at.is_(None))
                    .values(deleted_at=at).execution_options(synchronize_session=False))


def _restore_runs(session: Session, *, where: Any, at: datetime) -> None:
    went = select(Run.id).where(where, Run.deleted_at == at)
    session.execute(update(Profile).where(Profile.run_id.in_(went), Profile.deleted_at == at)
                    .values(deleted_at=None).execution_options(synchronize_session=False))
    session.execute(update(Run).where(where, Run.deleted_at == at)
                    .values(deleted_at=None).execution_options(synchronize_session=False))


def delete_run(session: Session, *, run: Run) -> Run:
    if run.deleted_at is None:
        _trash_runs(session, where=Run.id == run.id, at=utcnow())
        session.refresh(run)
    return run


def restore_run(session: Session, *, run: Run) -> Run:
    _check_restorable("run", run.id, run.deleted_at, utcnow())
    exp = session.get(Experiment, run.experiment_id)
    if exp is not None and exp.deleted_at is not None:
        raise Conflict(f"run {run.id} belongs to experiment {exp.name!r}, which is in the trash: "
                       "restore the experiment")
    assert run.deleted_at is not None
    _restore_runs(session, where=Run.id == run.id, at=run.deleted_at)
    session.refresh(run)
    return run


def delete_experiment(session: Session, *, experiment: Experiment) -> Experiment:
    if experiment.deleted_at is None:
        at = utcnow()
        _trash_runs(session, where=Run.experiment_id == experiment.id, at=at)
        experiment.deleted_at = at
        session.flush()
    return experiment


def restore_experiment(session: Session, *, experiment: Experiment) -> Experiment:
    _check_restorable("experiment", experiment.id, experiment.deleted_at, utcnow())
    assert experiment.deleted_at is not None
    _restore_runs(session, where=Run.experiment_id == experiment.id, at=experiment.deleted_at)
    experiment.deleted_at = None
    session.flush()
    return experiment


def list_trash(session: Session, *, project: Project) -> list[dict[str, Any]]:
    """What the project's trash holds, newest first: what was deleted on its own or with its parent is
    listed once, by the parent (restoring the parent brings it back)."""
    items: list[dict[str, Any]] = []
    exp_deleted: dict[int, datetime] = {}
    for e in session.scalars(select(Experiment).where(Experiment.project_id == project.id,
                                                      Experiment.deleted_at.is_not(None))):
        assert e.deleted_at is not None
        exp_deleted[e.id] = e.deleted_at
        items.append({"kind": "experiment", "id": str(e.id), "name": e.name, "experiment_id": e.id,
                      "experiment_name": e.name, "run_id": None, "deleted_at": e.deleted_at})
    names: dict[int, str] = {i: n for i, n in session.execute(
        select(Experiment.id, Experiment.name).where(Experiment.project_id == project.id))}
    run_deleted: dict[uuid.UUID, datetime] = {}
    for r in session.scalars(select(Run).where(Run.project_id == project.id, Run.deleted_at.is_not(None))):
        assert r.deleted_at is not None
        run_deleted[r.id] = r.deleted_at
        if exp_deleted.get(r.experiment_id) == r.deleted_at:
            continue
        items.append({"kind": "run", "id": str(r.id), "name": r.label or f"run {str(r.id)[:8]}",
                      "experiment_id": r.experiment_id, "experiment_name": names.get(r.experiment_id, ""),
                      "run_id": str(r.id), "deleted_at": r.deleted_at})
    for p, exp_id in session.execute(select(Profile, Run.experiment_id).join(Run, Run.id == Profile.run_id)
                                     .where(Profile.project_id == project.id, Profile.deleted_at.is_not(None))):
        if run_deleted.get(p.run_id) == p.deleted_at:
            continue
        items.append({"kind": "profile", "id": str(p.id), "name": p.name, "experiment_id": exp_id,
                      "experiment_name": names.get(exp_id, ""), "run_id": str(p.run_id),
                      "deleted_at": p.deleted_at})
    for i in items:
        i["purge_at"] = purge_at(i["deleted_at"])
    items.sort(key=lambda i: i["deleted_at"], reverse=True)
    return items


def purge(session: Session, *, now: datetime | None = None) -> int:
    """Delete for good what has been in the trash longer than RETENTION (rows cascade to their data)."""
    cutoff = (now or utcnow()) - RETENTION
    n = 0
    n += session.execute(delete(Profile).where(Profile.deleted_at < cutoff)).rowcount or 0  # type: ignore[attr-defined]
    n += session.execute(delete(Run).where(Run.deleted_at < cutoff)).rowcount or 0  # type: ignore[attr-defined]
    n += session.execute(delete(Experiment).where(Experiment.deleted_at < cutoff)).rowcount or 0  # type: ignore[attr-defined]
    return n


def purge_once() -> int:
    with unit_of_work() as session:
        n = purge(session)
    if n:
        log.info("purged %d object(s) deleted more than %d days ago", n, RETENTION.days)
    return n
