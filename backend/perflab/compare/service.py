"""Compare experiments against a baseline: the one entry point that assembles the result table,
validity, telemetry, syscalls, what changed, top movers and notes from the modules beside it.

The main comparison reads only precomputed data (see loading.py), never the raw samples, so it stays
fast however long the runs were. Overlays (overlay.py) read series chunks, downsampled before they leave.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import stats
from perflab.compare import settings as verdict_settings
from perflab.compare import validity
from perflab.compare.changes import what_changed
from perflab.compare.findings import for_experiments as findings_for
from perflab.compare.loading import load
from perflab.compare.movers import top_movers
from perflab.compare.noise import setup_noise
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
from perflab.findings.schemas import ExperimentFindings
from perflab.profiles.models import Profile


def compare(session: Session, *, sel: Selection, alpha: float = stats.ALPHA,
            margins: Mapping[str, float] | None = None) -> CompareReply:
    """The comparison; `alpha`, the level of the result table's verdicts, is lower at a sequential design's looks.
    `margins` ({family: fraction}) are the ones a share link froze; by default the project's current ones."""
    loaded = load(session, sel)
    exps = sel.experiments
    base = sel.baseline
    names = [e.name for e in exps]

    # Columns with per-run validity, and the profiles of each run (one query for all runs).
    profiles: dict[str, list[str]] = {}
    query = select(Profile.run_id, Profile.id).where(Profile.run_id.in_(sel.run_ids))
    if sel.frozen_at is not None:
        query = query.where(Profile.created_at <= sel.frozen_at)
    for run_id, profile_id in session.execute(query.order_by(Profile.created_at)):
        profiles.setdefault(str(run_id), []).append(str(profile_id))
    columns: list[ExperimentColumn] = []
    warnings_by_exp: dict[int, list[str]] = {}
    summary: list[str] = []
    flagged_runs = 0
    th = validity.thresholds(sel.project)
    invalid_by_exp: dict[int, int] = {}
    used: set[uuid.UUID] = set()
    for e in exps:
        infos = []
        flags: list[str] = []
        invalid_by_exp[e.id] = 0
        for i, r in enumerate(sel.runs.get(e.id, [])):
            label = run_label(r, i)
            bad = validity.invalid_reasons(r, th, wrk=loaded.wrk.get(r.id),
                                           load_role=loaded.wrk_role.get(r.id, "loadgen"))
            ws = validity.run_warnings(r, loaded)
            included = not bad or sel.include_invalid
            if bad:
                invalid_by_exp[e.id] += 1
                state = "invalid"
                left = "counted anyway" if sel.include_invalid else "left out"
                summary.append(f"{e.name} / {label}: invalid ({left}): {'; '.join(bad)}")
            else:
                state = "flagged" if ws else "ok"
            if ws and not bad:
                flagged_runs += 1
            if included:
                used.add(r.id)
                for w in ws:
                    flags.append(f"{label}: {w.message}")
                    if not bad:
                        summary.append(f"{e.name} / {label}: {w.message}")
            infos.append(RunInfo(id=str(r.id), label=label, status=r.status, status_reasons=r.status_reasons or [],
                                 created_at=r.created_at, started_at=r.started_at, warnings=ws,
                                 validity=state, invalid_reasons=bad, included=included,  # type: ignore[arg-type]
                                 profile_ids=profiles.get(str(r.id), [])))
        warnings_by_exp[e.id] = flags
        columns.append(ExperimentColumn(id=e.id, name=e.name, is_baseline=e.id == base.id, runs=infos))
    # Every figure below is computed over the runs counted: invalid ones are out unless included.
    counted = sel.only(used)

    # The result table. Margins: the smallest meaningful change per metric family, as this project set it.
    margins = verdict_settings.margins(session, sel.project) if margins is None else {**stats.MARGINS, **margins}
    results: list[ResultRow] = []
    for key, label, unit, direction in result_metrics(loaded, counted.run_ids):
        per_exp = {e.id: [wrk_value(loaded.wrk.get(r.id), key) for r in counted.runs.get(e.id, [])] for e in exps}
        base_vals = [v for v in per_exp[base.id] if v is not None]
        cells = {}
        for e in exps:
            c = cell(per_exp[e.id], None if e.id == base.id else base_vals, direction, warnings_by_exp[e.id],
                     key=key, margins=margins, alpha=alpha)
            c.invalid_runs = 0 if sel.include_invalid else invalid_by_exp[e.id]
            if c.n == 0 and c.invalid_runs:
                c.verdict = "invalid"
            elif e.id != base.id and not base_vals and invalid_by_exp[base.id] and not sel.include_invalid:
                c.verdict = "invalid"  # nothing valid to compare against
            cells[e.name] = c
        if all(c.n == 0 and not c.invalid_runs for c in cells.values()):
            continue
        results.append(ResultRow(key=key, label=label, unit=unit, direction=direction, cells=cells))

    metrics = [
        MetricVerdict(
            key=row.key, direction=row.direction,
            values={n: row.cells[n].median for n in names},
            runs={n: row.cells[n].n for n in names},
            delta_pct={n: row.cells[n].delta_pct for n in names},
            verdict={n: row.cells[n].verdict for n in names},
            undecided_reason={n: row.cells[n].undecided_reason for n in names},
            detectable_pct={n: row.cells[n].detectable_pct for n in names},
            runs_needed={n: row.cells[n].runs_needed for n in names},
        )
        for row in results
    ]

    telemetry, netqtop = telemetry_tables(counted, loaded, margins)
    syscalls = syscall_tables(counted, loaded, margins)
    changes = what_changed(session, sel)
    movers = top_movers(counted, results, telemetry, netqtop, syscalls)
    notes = notes_for(session, sel=sel)
    findings = findings_for(
        session, experiments=[(e.name, sel.runs.get(e.id, [])) for e in exps], frozen_at=sel.frozen_at)
    overlay_metrics = [OverlayMetric(role=t.role, key=row.key, label=row.label, unit=row.unit)
                       for t in telemetry for row in t.rows]
    overlay_metrics += [OverlayMetric(role=row.role, key=row.key, label=row.label, unit=row.unit) for row in netqtop]
    return CompareReply(
        baseline=base.name, experiments=names, metrics=metrics, project=sel.project.slug,
        method=StatsMethod.model_validate({**stats.METHOD, "alpha": alpha, "confidence": 1.0 - alpha,
                                           "margins_pct": {k: round(v * 100.0, 2) for k, v in margins.items()}}),
        columns=columns, results=results,
        validity=Validity(summary=summary, flagged_runs=flagged_runs, invalid_runs=sum(invalid_by_exp.values()),
                          include_invalid=sel.include_invalid),
        telemetry=telemetry, syscalls=syscalls, netqtop=netqtop, changes=changes, top_movers=movers, notes=notes,
        overlay_metrics=overlay_metrics,
        findings=[ExperimentFindings.model_validate(f) for f in findings],
        noise=setup_noise(base.name, results, telemetry),
    )
