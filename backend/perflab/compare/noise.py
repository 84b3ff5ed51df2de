"""The noise of a setup: from repeated runs of one experiment, per host role and metric, the smallest change
that n runs a side detect ("this setup detects changes of 9.8% or more with 3 runs")."""

from __future__ import annotations

import math
from typing import Literal

from perflab import stats
from perflab.compare.schemas import Cell, NoiseRow, ResultRow, RoleTelemetry, SetupNoise

# Run counts a reader plans with, besides the runs the experiment has.
PLANNING_RUNS = (3, 5, 10)


def _row(section: Literal["results", "telemetry"], role: str | None, key: str, label: str, unit: str, cell: Cell) -> NoiseRow | None:
    values = [v for v in cell.values if v is not None]
    w = stats.welch(values, values)
    if w is None or cell.median is None:
        return None
    spread = (math.expm1(w.sd) if w.scale == "log" else (w.sd / abs(w.base_mean) if w.base_mean else None))
    by_runs = {n: stats.noise_floor(values, n) for n in sorted({len(values), *PLANNING_RUNS})}
    return NoiseRow(section=section, role=role, key=key, label=label, unit=unit, n=len(values), median=cell.median,
                    spread_pct=stats.pct(spread), detectable_pct=stats.pct(by_runs[len(values)]),
                    detectable_by_runs={n: stats.pct(d) for n, d in by_runs.items()})


def setup_noise(experiment: str, results: list[ResultRow], telemetry: list[RoleTelemetry]) -> SetupNoise:
    """Every metric of `experiment` with 2 or more runs: its run-to-run spread and what n runs detect."""
    rows: list[NoiseRow] = []
    for r in results:
        if experiment in r.cells and (row := _row("results", None, r.key, r.label, r.unit, r.cells[experiment])):
            rows.append(row)
    for t in telemetry:
        for tr in t.rows:
            if experiment in tr.cells and (row := _row("telemetry", t.role, tr.key, tr.label, tr.unit,
                                                       tr.cells[experiment])):
                rows.append(row)
    runs = max((r.n for r in rows), default=0)
    return SetupNoise(experiment=experiment, runs=runs, rows=rows)
