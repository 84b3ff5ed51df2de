"""Findings of a run and of a comparison: gather a run's precomputed data once, run every rule over it.

Only precomputed data is read (summaries, ``series.stats``, config/sysctl snapshots, host facts), never
raw samples: a run's findings cost a handful of small queries.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.artifacts import service as artifacts_service
from perflab.artifacts.models import Artifact
from perflab.experiments.models import Experiment
from perflab.findings.rules import PROFILE_FUNCTIONS, Finding, RunData, evaluate
from perflab.hosts.models import Host
from perflab.profiles.models import Profile, ProfileFunction
from perflab.runs.models import Run, RunHost, Series, Summary

log = logging.getLogger(__name__)

# Rules read vmstat's steady-state means only; pidstat can have thousands of series per run.
SERIES_SOURCES = ("vmstat",)


def run_data_many(session: Session, *, runs: Sequence[tuple[Run, str]], frozen_at: datetime | None = None
                  ) -> dict[uuid.UUID, RunData]:
    """RunData of many runs (with their experiment names) in four queries, whatever their number: a
    comparison of a dozen runs must not cost a dozen round trips per kind of data. frozen_at: a saved
    comparison's time; config snapshots attached after it are left out."""
    out = {run.id: RunData(run_id=str(run.id), experiment=name) for run, name in runs}
    ids = list(out)
    if not ids:
        return out
    for run_id, role, kind, payload in session.execute(
        select(Summary.run_id, Summary.role, Summary.kind, Summary.data).where(Summary.run_id.in_(ids))
        .order_by(Summary.id)
    ):
        data = out[run_id]
        data.summaries.append((role, kind, payload))
        if kind == "sysctl":
            data.sysctl.update((payload or {}).get("values") or {})
        elif kind == "host-facts":
            # Facts an import read from cgroup files, nproc, lscpu...: the same keys as an agent's hello.
            data.facts[role] = {**(payload or {}), **data.facts.get(role, {})}
    # Columns, not Series objects: a comparison reads hundreds of rows and the ORM's identity map
    # bookkeeping cost more than the query.
    for run_id, role, source, metric, key, labels, unit, stats in session.execute(
        select(Series.run_id, Series.role, Series.source, Series.metric, Series.key, Series.labels, Series.unit,
               Series.stats).where(Series.run_id.in_(ids), Series.source.in_(SERIES_SOURCES)).order_by(Series.id)
    ):
        out[run_id].series.append({"role": role, "source": source, "metric": metric, "key": key,
                                   "labels": labels, "unit": unit, "stats": stats or {}})
    snapshots = select(Artifact).where(Artifact.run_id.in_(ids), Artifact.kind.in_(("config", "sysctl")))
    if frozen_at is not None:
        snapshots = snapshots.where(Artifact.created_at <= frozen_at)
    for a in session.scalars(snapshots.order_by(Artifact.id)):
        text = artifacts_service.read_snapshot_text(a)
        if text is None or a.run_id is None:
            continue
        data = out[a.run_id]
        if a.kind == "config":
            data.configs.append((a.role, a.name, text, artifacts_service.snapshot_form(a, text)))
            continue
        try:
            values = parsers.parse("sysctl", text).get("values") or {}
        except parsers.ParseError:
            continue
        for k, v in values.items():
            data.sysctl.setdefault(k, v)
    profiles: dict[uuid.UUID, dict[str, Any]] = {}
    for run_id, pid, role, name, total, fn, self_value, total_value in session.execute(
        select(Profile.run_id, Profile.id, Profile.role, Profile.name, Profile.total, ProfileFunction.name,
               ProfileFunction.self_value, ProfileFunction.total_value)
        .join(ProfileFunction, ProfileFunction.profile_id == Profile.id)
        .where(Profile.run_id.in_(ids), ProfileFunction.name.in_(sorted(PROFILE_FUNCTIONS)))
        .order_by(Profile.created_at)
    ):
        entry = profiles.get(pid)
        if entry is None:
            entry = profiles[pid] = {"role": role, "profile_id": str(pid), "name": name, "total": total,
                                     "functions": {}}
            out[run_id].profiles.append(entry)
        entry["functions"][fn] = {"self": self_value, "total": total_value}
    agents: set[tuple[uuid.UUID, str]] = set()
    for run_id, role, facts in session.execute(
        select(RunHost.run_id, RunHost.role, Host.facts).join(Host, Host.id == RunHost.host_id)
        .where(RunHost.run_id.in_(ids))
    ):
        # The first agent of a role speaks for it; what it did not report, imported facts may fill in.
        if (run_id, role) not in agents:
            agents.add((run_id, role))
            out[run_id].facts[role] = {**out[run_id].facts.get(role, {}),
                                       **{k: v for k, v in (facts or {}).items() if v is not None}}
    return out


def run_data(session: Session, *, run: Run, experiment: str | None = None) -> RunData:
    if experiment is None:
        exp = session.get(Experiment, run.experiment_id)
        experiment = exp.name if exp is not None else ""
    return run_data_many(session, runs=[(run, experiment)])[run.id]


def for_run(session: Session, *, run: Run, experiment: str | None = None) -> list[Finding]:
    return evaluate(run_data(session, run=run, experiment=experiment))


def use_checklist(session: Session, *, run: Run) -> list[dict[str, Any]]:
    """The USE checklist of a run (``findings.use``), from the data and findings of its rules."""
    from perflab.findings import use

    data = run_data(session, run=run)
    return use.checklist(data, evaluate(data))
