"""Host telemetry (steady-state means per role) and strace -c tables side by side, each cell against the baseline."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Mapping

from perflab import stats
from perflab.compare.loading import PIDSTAT_ROWS, VMSTAT_ROWS, Loaded
from perflab.compare.results import cell
from perflab.compare.schemas import RoleTelemetry, SyscallCell, SyscallRow, SyscallTable, TelemetryRow
from perflab.compare.selection import Selection
from perflab.runs.models import Run


def _key_order(key: str) -> tuple[int, str]:
    source = key.split(".", 1)[0]
    if source == "vmstat":
        metric = key.split(".", 1)[1]
        return (0, f"{list(VMSTAT_ROWS).index(metric):02d}" if metric in VMSTAT_ROWS else metric)
    if source == "pidstat":
        metric, _, command = key.split(".", 1)[1].partition("[")
        return (1, f"{command}{list(PIDSTAT_ROWS).index(metric):02d}" if metric in PIDSTAT_ROWS else key)
    return (2, key)


def telemetry_tables(sel: Selection, loaded: Loaded, margins: Mapping[str, float] | None = None
                     ) -> tuple[list[RoleTelemetry], list[TelemetryRow]]:
    base = sel.baseline
    by_role: dict[str, list[TelemetryRow]] = defaultdict(list)
    netq: list[TelemetryRow] = []
    for (role, key) in sorted(loaded.telemetry, key=lambda rk: (rk[0], _key_order(rk[1]))):
        per_run = loaded.telemetry[(role, key)]
        per_exp = {e.id: [per_run.get(r.id) for r in sel.runs.get(e.id, [])] for e in sel.experiments}
        base_vals = [v for v in per_exp[base.id] if v is not None]
        cells = {e.name: cell(per_exp[e.id], None if e.id == base.id else base_vals, "neutral", key=key,
                              margins=margins)
                 for e in sel.experiments}
        source, metric, label, unit = loaded.telemetry_meta[(role, key)]
        row = TelemetryRow(key=key, role=role, source=source, metric=metric, label=label, unit=unit,
                           direction="neutral", cells=cells)
        (netq if source == "netqtop" else by_role[role]).append(row)
    hosts: dict[str, set[str]] = defaultdict(set)
    for pairs in loaded.hosts.values():
        for role, host in pairs:
            hosts[role].add(host.hostname)
    return [RoleTelemetry(role=role, hosts=sorted(hosts.get(role, set())), rows=rows)
            for role, rows in sorted(by_role.items())], netq


def _syscall_cell(
    per_run: dict[uuid.UUID, dict[str, dict[str, float]]], runs: list[Run], base_runs: list[Run] | None, syscall: str,
    margin: float,
) -> SyscallCell:
    """Medians over the runs that traced this process; a syscall missing from a run's table had 0 calls."""

    def col(rs: list[Run], name: str) -> list[float]:
        return [per_run[r.id].get(syscall, {}).get(name, 0.0) for r in rs]

    calls, secs, errs = col(runs, "calls"), col(runs, "seconds"), col(runs, "errors")
    upc = [s / c * 1e6 for s, c in zip(secs, calls, strict=True) if c]
    out = SyscallCell(n=len(calls), calls=stats.median(calls), seconds=stats.median(secs),
                      usecs_per_call=stats.median(upc), errors=stats.median(errs))
    if base_runs is not None:
        cc = stats.compare(col(base_runs, "calls"), calls, "neutral", margin=margin)
        cs = stats.compare(col(base_runs, "seconds"), secs, "neutral", margin=margin)
        out.calls_delta_pct, out.seconds_delta_pct = stats.pct(cc.delta_rel), stats.pct(cs.delta_rel)
        out.calls_verdict, out.seconds_verdict = cc.verdict, cs.verdict
        out.calls_undecided_reason, out.seconds_undecided_reason = cc.undecided_reason, cs.undecided_reason
        out.calls_detectable_pct, out.seconds_detectable_pct = stats.pct(cc.detectable), stats.pct(cs.detectable)
        out.calls_runs_needed, out.seconds_runs_needed = cc.runs_needed, cs.runs_needed
    elif calls:
        out.calls_delta_pct = out.seconds_delta_pct = 0.0
        if len(calls) > 1:
            out.calls_verdict = out.seconds_verdict = "equivalent"
            out.calls_detectable_pct = stats.pct(stats.noise_floor(calls))
            out.seconds_detectable_pct = stats.pct(stats.noise_floor(secs))
        else:
            out.calls_verdict = out.seconds_verdict = "not_decided"
            out.calls_undecided_reason = out.seconds_undecided_reason = "one run: no noise estimate"
    return out


def _syscall_cells(sel: Selection, per_run: dict[uuid.UUID, dict[str, dict[str, float]]],
                   runs_with: dict[int, list[Run]], syscall: str, margin: float) -> dict[str, SyscallCell]:
    base_runs = runs_with[sel.baseline.id]
    return {e.name: _syscall_cell(per_run, runs_with[e.id], None if e.id == sel.baseline.id else base_runs, syscall,
                                  margin)
            for e in sel.experiments}


def syscall_tables(sel: Selection, loaded: Loaded, margins: Mapping[str, float] | None = None) -> list[SyscallTable]:
    base = sel.baseline
    margin = stats.margin_for("strace.", margins)
    tables: list[SyscallTable] = []
    for (role, process), per_run in sorted(loaded.strace.items()):
        runs_with = {e.id: [r for r in sel.runs.get(e.id, []) if r.id in per_run] for e in sel.experiments}
        names = sorted({s for t in per_run.values() for s in t if s != "__total__"})
        totals = _syscall_cells(sel, per_run, runs_with, "__total__", margin)
        bt = totals[base.name]
        rows: list[SyscallRow] = []
        for name in names:
            cells = _syscall_cells(sel, per_run, runs_with, name, margin)
            b = cells[base.name]
            score = 0.0
            texts: dict[str, str] = {}
            for e in sel.experiments[1:]:
                c, t = cells[e.name], totals[e.name]
                if not c.n or not b.n:
                    continue
                share = abs(share_of(c.calls, t.calls) - share_of(b.calls, bt.calls)) + abs(
                    share_of(c.seconds, t.seconds) - share_of(b.seconds, bt.seconds))
                score = max(score, share)
                texts[e.name] = (f"{name} {b.calls or 0:.0f} ({b.seconds or 0:.2f}s) -> "
                                 f"{c.calls or 0:.0f} ({c.seconds or 0:.2f}s)")
            rows.append(SyscallRow(syscall=name, cells=cells, change_score=round(score, 4), summary=texts))
        rows.sort(key=lambda r: (-r.change_score, -(r.cells[base.name].seconds or 0.0), r.syscall))
        tables.append(SyscallTable(role=role, process=process, totals=totals, rows=rows))
    return tables


def share_of(part: float | None, total: float | None) -> float:
    return (part or 0.0) / total if total else 0.0
