"""Which experiments and runs a comparison covers: by name or id, or exactly the runs a saved comparison froze."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import String, cast, or_, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from perflab.errors import BadInput, NotFound
from perflab.experiments.models import Experiment
from perflab.projects.models import Project
from perflab.runs.models import Run, counted

MAX_EXPERIMENTS = 12
# Runs still collecting have no final numbers yet; every finished run counts, flagged if need be.
FINISHED = ("complete", "partial", "failed")


@dataclass
class Selection:
    project: Project
    experiments: list[Experiment]  # baseline first
    runs: dict[int, list[Run]] = field(default_factory=dict)
    # Invalid runs (compare/validity.py) counted in medians and verdicts on purpose.
    include_invalid: bool = False
    # A saved comparison: config snapshots and profiles attached to its runs after this are not shown.
    frozen_at: datetime | None = None

    @property
    def baseline(self) -> Experiment:
        return self.experiments[0]

    @property
    def run_ids(self) -> list[uuid.UUID]:
        return [r.id for e in self.experiments for r in self.runs.get(e.id, [])]

    def only(self, keep: set[uuid.UUID]) -> Selection:
        """The same comparison over the runs in ``keep``."""
        runs = {e: [r for r in rs if r.id in keep] for e, rs in self.runs.items()}
        return Selection(project=self.project, experiments=self.experiments, runs=runs,
                         include_invalid=self.include_invalid, frozen_at=self.frozen_at)




def find_experiments(session: Session, *, project: Project, refs: Sequence[str]) -> list[Experiment]:
    """Experiments by name, or by id when no experiment has that name; order kept, duplicates dropped."""
    wanted = [r.strip() for r in refs if r and r.strip()]
    # Only what fits a bigint can be an id; anything longer is a name (or unknown).
    ids = [int(r) for r in wanted if r.isdigit() and len(r) <= 18]
    rows = list(
        session.scalars(
            select(Experiment).where(
                Experiment.project_id == project.id, Experiment.deleted_at.is_(None),
                or_(Experiment.name.in_(wanted), Experiment.id.in_(ids)),
            )
        )
    )
    by_name = {e.name: e for e in rows}
    by_id = {e.id: e for e in rows}
    unknown = [r for r in wanted if r not in by_name and not (r.isdigit() and len(r) <= 18 and int(r) in by_id)]
    former: dict[str, Experiment] = {}
    if unknown:
        # A name from before a rename (an old bookmark): the latest experiment that had it.
        for e in session.scalars(
            select(Experiment).where(Experiment.project_id == project.id, Experiment.deleted_at.is_(None),
                                     Experiment.former_names.overlap(cast(unknown, ARRAY(String(200)))))
            .order_by(Experiment.updated_at)
        ):
            for name in e.former_names:
                former[name] = e
    out: list[Experiment] = []
    for ref in wanted:
        exp = (by_name.get(ref) or (by_id.get(int(ref)) if ref.isdigit() and len(ref) <= 18 else None)
               or former.get(ref))
        if exp is None:
            raise NotFound(f"project {project.slug!r} has no experiment {ref!r}")
        if exp not in out:
            out.append(exp)
    return out


def select_experiments(
    session: Session, *, project: Project, baseline: str | None, experiments: Sequence[str],
    include_invalid: bool = False,
) -> Selection:
    # Blank names (`?experiments=`) name nothing: without this an empty selection reached the table code.
    refs = [r for r in ([baseline] if baseline else []) + list(experiments) if r.strip()]
    if not refs:
        raise BadInput("name a baseline and at least one experiment to compare")
    chosen = find_experiments(session, project=project, refs=refs)
    if len(chosen) > MAX_EXPERIMENTS:
        raise BadInput(f"compare at most {MAX_EXPERIMENTS} experiments at once")
    runs = session.scalars(
        select(Run)
        .where(Run.project_id == project.id, Run.experiment_id.in_([e.id for e in chosen]), Run.status.in_(FINISHED),
               counted())
        .order_by(Run.created_at, Run.id)
    )
    by_exp: dict[int, list[Run]] = defaultdict(list)
    for r in runs:
        by_exp[r.experiment_id].append(r)
    return Selection(project=project, experiments=chosen, runs=dict(by_exp), include_invalid=include_invalid)


def select_runs(
    session: Session, *, project: Project, experiment_ids: Sequence[int], run_ids: Sequence[uuid.UUID]
) -> Selection:
    """Exactly these runs (a saved comparison): runs added to the experiments later are not included."""
    exps = {e.id: e for e in session.scalars(
        select(Experiment).where(Experiment.project_id == project.id, Experiment.id.in_(list(experiment_ids)),
                                 Experiment.deleted_at.is_(None))
    )}
    chosen = [exps[i] for i in experiment_ids if i in exps]
    if not chosen:
        raise NotFound("the experiments of this comparison no longer exist")
    by_exp: dict[int, list[Run]] = defaultdict(list)
    if run_ids:
        for r in session.scalars(
            select(Run).where(Run.project_id == project.id, Run.id.in_(list(run_ids)), counted())
            .order_by(Run.created_at, Run.id)
        ):
            if r.experiment_id in exps:
                by_exp[r.experiment_id].append(r)
    return Selection(project=project, experiments=chosen, runs=dict(by_exp))


def run_label(run: Run, index: int) -> str:
    return run.label or f"run {index + 1}"
