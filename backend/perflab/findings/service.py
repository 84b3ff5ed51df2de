"""Findings of a run and of a comparison: gather a run's precomputed data once, run every rule over it.

Only precomputed data is read (summaries, ``series.stats``, config/sysctl snapshots, host facts), never
raw samples: a run's findings cost a handful of small queries.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.artifacts import service as artifacts_service
from perflab.artifacts.models import Artifact
from perflab.experiments.models import Experiment
from perflab.findings.rules import Finding, RunData, evaluate
from perflab.hosts.models import Host
from perflab.runs.models import Run, RunHost, Series, Summary

log = logging.getLogger(__name__)

# Rules read vmstat's steady-state means only; pidstat can have thousands of series per run.
SERIES_SOURCES = ("vmstat",)


def run_data_many(session: Session, *, runs: Sequence[tuple[Run, str]]) -> dict[uuid.UUID, RunData]:
    """RunData of many runs (with their experiment names) in four queries, whatever their number: a
    comparison of a dozen runs must not cost a dozen round trips per kind of data."""
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
    # Columns, not Series objects: a comparison reads hundreds of rows and the ORM's identity map
    # bookkeeping cost more than the query.
    for run_id, role, source, metric, key, labels, unit, stats in session.execute(
        select(Series.run_id, Series.role, Series.source, Series.metric, Series.key, Series.labels, Series.unit,
               Series.stats).where(Series.run_id.in_(ids), Series.source.in_(SERIES_SOURCES)).order_by(Series.id)
    ):
        out[run_id].series.append({"role": role, "source": source, "metric": metric, "key": key,
                                   "labels": labels, "unit": unit, "stats": stats or {}})
    for a in session.scalars(
        select(Artifact).where(Artifact.run_id.in_(ids), Artifact.kind.in_(("config", "sysctl"))).order_by(Artifact.id)
    ):
        text = artifacts_service.read_snapshot_text(a)
        if text is None or a.run_id is None:
            continue
        data = out[a.run_id]
        if a.kind == "config":
            data.configs.append((a.role, a.name, text))
            continue
        try:
            values = parsers.parse("sysctl", text).get("values") or {}
        except parsers.ParseError:
            continue
        for k, v in values.items():
            data.sysctl.setdefault(k, v)
    for run_id, role, facts in session.execute(
        select(RunHost.run_id, RunHost.role, Host.facts).join(Host, Host.id == RunHost.host_id)
        .where(RunHost.run_id.in_(ids))
    ):
        out[run_id].facts.setdefault(role, facts or {})
    return out


def run_data(session: Session, *, run: Run, experiment: str | None = None) -> RunData:
    if experiment is None:
        exp = session.get(Experiment, run.experiment_id)
        experiment = exp.name if exp is not None else ""
    return run_data_many(session, runs=[(run, experiment)])[run.id]


def for_run(session: Session, *, run: Run, experiment: str | None = None) -> list[Finding]:
    return evaluate(run_data(session, run=run, experiment=experiment))


