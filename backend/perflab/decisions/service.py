"""Decisions: component, knob, before -> after, status and rationale, with the comparison as evidence."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import versioning
from perflab.artifacts.models import Artifact
from perflab.auth.models import User
from perflab.compare import changes as compare_changes
from perflab.compare import selection as compare_selection
from perflab.decisions.models import Decision
from perflab.errors import BadInput, NotFound
from perflab.experiments.models import Experiment
from perflab.projects.models import Project
from perflab.runs.models import Run
from perflab.sharing.models import Comparison

STATUSES = ("proposed", "adopted", "rejected", "inconclusive")


def _comparison_id(session: Session, *, project: Project, comparison_id: int | None, short_id: str | None) -> int | None:
    if comparison_id is None and short_id is None:
        return None
    stmt = select(Comparison).where(Comparison.project_id == project.id)
    stmt = stmt.where(Comparison.id == comparison_id) if comparison_id is not None else stmt.where(
        Comparison.short_id == short_id)
    found = session.scalar(stmt)
    if found is None:
        raise NotFound(f"no saved comparison {short_id or comparison_id} in project {project.slug!r}")
    return found.id


def _experiment(session: Session, *, project: Project, experiment_id: int) -> Experiment:
    exp = session.get(Experiment, experiment_id)
    if exp is None or exp.project_id != project.id:
        raise NotFound(f"no experiment {experiment_id} in project {project.slug!r}")
    return exp


def create_decision(
    session: Session, *, project: Project, author: User, experiment_id: int, knob: str, component: str = "",
    before: str = "", after: str = "", status: str = "proposed", rationale: str = "",
    comparison_id: int | None = None, comparison_short_id: str | None = None,
) -> Decision:
    if status not in STATUSES:
        raise BadInput(f"status must be one of {', '.join(STATUSES)}")
    exp = _experiment(session, project=project, experiment_id=experiment_id)
    row = Decision(
        project_id=project.id, experiment_id=exp.id, component=component.strip(), knob=knob.strip(), before=before,
        after=after, status=status, rationale=rationale, author_id=author.id,
        comparison_id=_comparison_id(session, project=project, comparison_id=comparison_id,
                                     short_id=comparison_short_id),
    )
    session.add(row)
    session.flush()
    return row


def list_decisions(
    session: Session, *, project: Project, status: str | None = None, experiment_id: int | None = None
) -> list[Decision]:
    stmt = select(Decision).where(Decision.project_id == project.id)
    if status is not None:
        if status not in STATUSES:
            raise BadInput(f"status must be one of {', '.join(STATUSES)}")
        stmt = stmt.where(Decision.status == status)
    if experiment_id is not None:
        stmt = stmt.where(Decision.experiment_id == experiment_id)
    return list(session.scalars(stmt.order_by(Decision.updated_at.desc(), Decision.id.desc())))


def get_decision(session: Session, *, decision_id: int) -> Decision:
    row = session.get(Decision, decision_id)
    if row is None:
        raise NotFound(f"no decision {decision_id}")
    return row


def update_decision(session: Session, *, decision: Decision, project: Project, changes: dict[str, Any]) -> Decision:
    versioning.bump(session, decision, sent=changes.get("version"), what="this decision")
    for name in ("component", "knob", "before", "after", "status", "rationale"):
        if changes.get(name) is not None:
            setattr(decision, name, changes[name].strip() if name in ("component", "knob") else changes[name])
    if "comparison_id" in changes or "comparison_short_id" in changes:
        decision.comparison_id = _comparison_id(
            session, project=project, comparison_id=changes.get("comparison_id"),
            short_id=changes.get("comparison_short_id"))
    session.flush()
    return decision


def delete_decision(session: Session, *, decision: Decision) -> None:
    """Who may is checked by the route's dependency (decisions/router.py: the author or an owner)."""
    session.delete(decision)
    session.flush()


def details(session: Session, *, decisions: list[Decision]) -> dict[str, dict[int, str]]:
    """Experiment names, author emails and comparison short ids for a list of decisions."""
    exp_ids = {d.experiment_id for d in decisions}
    user_ids = {d.author_id for d in decisions if d.author_id is not None}
    cmp_ids = {d.comparison_id for d in decisions if d.comparison_id is not None}
    return {
        "experiments": dict(session.execute(
            select(Experiment.id, Experiment.name).where(Experiment.id.in_(exp_ids))).all()) if exp_ids else {},
        "authors": dict(session.execute(
            select(User.id, User.email).where(User.id.in_(user_ids))).all()) if user_ids else {},
        "comparisons": dict(session.execute(
            select(Comparison.id, Comparison.short_id).where(Comparison.id.in_(cmp_ids))).all())
        if cmp_ids else {},
    }


def _default_baseline(session: Session, *, project: Project, experiment: Experiment) -> tuple[Experiment | None,
                                                                                              int | None]:
    """The baseline of the latest saved comparison that includes the experiment; else the oldest other
    experiment with a config snapshot (the configuration the investigation started from)."""
    saved = session.scalar(
        select(Comparison).where(Comparison.project_id == project.id,
                                 Comparison.experiment_ids.contains([experiment.id]),
                                 Comparison.baseline_experiment_id != experiment.id)
        .order_by(Comparison.created_at.desc(), Comparison.id.desc()).limit(1)
    )
    if saved is not None:
        return session.get(Experiment, saved.baseline_experiment_id), saved.id
    oldest = session.scalar(
        select(Experiment).join(Run, Run.experiment_id == Experiment.id).join(Artifact, Artifact.run_id == Run.id)
        .where(Experiment.project_id == project.id, Experiment.id != experiment.id,
               Artifact.kind.in_(("config", "sysctl")))
        .order_by(Experiment.created_at, Experiment.id).limit(1)
    )
    return oldest, None


def prefill(
    session: Session, *, project: Project, experiment: Experiment, baseline: str | None = None
) -> list[dict[str, Any]]:
    """Decision drafts from the knob changes between the baseline's config snapshots and the experiment's."""
    comparison_id: int | None = None
    if baseline:
        found = compare_selection.find_experiments(session, project=project, refs=[baseline])
        base: Experiment | None = found[0]
    else:
        base, comparison_id = _default_baseline(session, project=project, experiment=experiment)
    if base is None or base.id == experiment.id:
        return []
    knobs = compare_changes.knob_changes_between(session, project=project, baseline=base, experiment=experiment)
    return [
        {"experiment_id": experiment.id, "baseline": base.name, "component": k.component, "knob": k.knob,
         "context": k.context, "before": k.before, "after": k.after, "file": k.file, "comparison_id": comparison_id}
        for k in knobs
    ]
