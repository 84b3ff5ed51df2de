"""Compare experiments against a baseline: the one entry point that assembles the result table,
validity, telemetry, syscalls, what changed, top movers and notes from the modules beside it.

The main comparison reads only precomputed data (see loading.py), never the raw samples, so it stays
fast however long the runs were. Overlays (overlay.py) read samples, downsampled in SQL.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import stats
from perflab.compare.changes import what_changed
from perflab.compare.loading import load
from perflab.compare.movers import top_movers
from perflab.compare.notes import notes_for
from perflab.compare.results import cell, result_metrics, wrk_value
from perflab.compare.schemas import (
    CompareReply,
    ExperimentColumn,
    MetricVerdict,
    OverlayMetric,
    ResultRow,
    RunInfo,
    StatsMethod,
    Validity,
)
from perflab.compare.selection import Selection, run_label
from perflab.compare.telemetry import syscall_tables, telemetry_tables
from perflab.compare.validity import run_warnings
from perflab.profiles.models import Profile


def compare(session: Session, *, sel: Selection) -> CompareReply:
    loaded = load(session, sel)
    exps = sel.experiments
    base = sel.baseline
    names = [e.name for e in exps]

    # Columns with per-run validity, and the profiles of each run (one query for all runs).
    profiles: dict[str, list[str]] = {}
    for run_id, profile_id in session.execute(
        select(Profile.run_id, Profile.id).where(Profile.run_id.in_(sel.run_ids)).order_by(Profile.created_at)
    ):
        profiles.setdefault(str(run_id), []).append(str(profile_id))
    columns: list[ExperimentColumn] = []
    warnings_by_exp: dict[int, list[str]] = {}
    summary: list[str] = []
    flagged_runs = 0
    for e in exps:
        infos = []
        flags: list[str] = []
        for i, r in enumerate(sel.runs.get(e.id, [])):
            ws = run_warnings(r, loaded)
            if ws:
                flagged_runs += 1
            for w in ws:
                flags.append(f"{run_label(r, i)}: {w.message}")
                summary.append(f"{e.name} / {run_label(r, i)}: {w.message}")
            infos.append(RunInfo(id=str(r.id), label=run_label(r, i), status=r.status, status_reasons=r.status_reasons or [],
                                 created_at=r.created_at, started_at=r.started_at, warnings=ws,
                                 profile_ids=profiles.get(str(r.id), [])))
        warnings_by_exp[e.id] = flags
        columns.append(ExperimentColumn(id=e.id, name=e.name, is_baseline=e.id == base.id, runs=infos))

    # The result table.
    results: list[ResultRow] = []
    for key, label, unit, direction in result_metrics(loaded, sel.run_ids):
        per_exp = {e.id: [wrk_value(loaded.wrk.get(r.id), key) for r in sel.runs.get(e.id, [])] for e in exps}
        base_vals = [v for v in per_exp[base.id] if v is not None]
        cells = {
            e.name: cell(per_exp[e.id], None if e.id == base.id else base_vals, direction, warnings_by_exp[e.id])
            for e in exps
        }
        if all(c.n == 0 for c in cells.values()):
            continue
        results.append(ResultRow(key=key, label=label, unit=unit, direction=direction, cells=cells))

    metrics = [
        MetricVerdict(
            key=row.key, direction=row.direction,
            values={n: row.cells[n].median for n in names},
            runs={n: row.cells[n].n for n in names},
            delta_pct={n: row.cells[n].delta_pct for n in names},
            verdict={n: row.cells[n].verdict for n in names},
        )
        for row in results
    ]

    telemetry, netqtop = telemetry_tables(sel, loaded)
    syscalls = syscall_tables(sel, loaded)
    changes = what_changed(session, sel)
    movers = top_movers(sel, results, telemetry, netqtop, syscalls)
    notes = notes_for(session, sel=sel)
    overlay_metrics = [OverlayMetric(role=t.role, key=row.key, label=row.label, unit=row.unit)
                       for t in telemetry for row in t.rows]
    overlay_metrics += [OverlayMetric(role=row.role, key=row.key, label=row.label, unit=row.unit) for row in netqtop]
    return CompareReply(
        baseline=base.name, experiments=names, metrics=metrics, project=sel.project.slug,
        method=StatsMethod(**stats.METHOD),  # type: ignore[arg-type]
        columns=columns, results=results,
        validity=Validity(summary=summary, flagged_runs=flagged_runs),
        telemetry=telemetry, syscalls=syscalls, netqtop=netqtop, changes=changes, top_movers=movers, notes=notes,
        overlay_metrics=overlay_metrics,
    )
