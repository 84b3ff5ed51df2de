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
from perflab.findings.rules.base import REQUEST_SYSCALL, strace_requests
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


PER_REQUEST = ("calls_per_request", "usecs_per_request")


def per_request(value: float | None) -> str:
    """5.478 -> "5.48", 26.07 -> "26.1", 1234.5 -> "1,234": per-request figures at a readable precision
    (as the page's formatValue writes them)."""
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _syscall_cell(
    per_run: dict[uuid.UUID, dict[str, dict[str, float]]], runs: list[Run], base_runs: list[Run] | None, syscall: str,
    margin: float,
) -> SyscallCell:
    """Medians over the runs that traced this process; a syscall missing from a run's table had 0 calls.
    Compared per request (the requests its traced process read in the window): a run that served twice
    the requests makes twice the calls and is not worse for it."""

    def col(rs: list[Run], name: str) -> list[float]:
        return [per_run[r.id].get(syscall, {}).get(name, 0.0) for r in rs]

    def per_req(rs: list[Run]) -> dict[str, list[float]]:
        known = [(per_run[r.id].get(syscall, {}), strace_requests(per_run[r.id])) for r in rs]
        known = [(row, req) for row, req in known if req]
        return {"calls_per_request": [row.get("calls", 0.0) / req for row, req in known],
                "usecs_per_request": [row.get("seconds", 0.0) * 1e6 / req for row, req in known]}

    calls, secs, errs = col(runs, "calls"), col(runs, "seconds"), col(runs, "errors")
    upc = [s / c * 1e6 for s, c in zip(secs, calls, strict=True) if c]
    out = SyscallCell(n=len(calls), calls=stats.median(calls), seconds=stats.median(secs),
                      usecs_per_call=stats.median(upc), errors=stats.median(errs))
    requests = [float(q) for q in (strace_requests(per_run[r.id]) for r in runs) if q]
    values = per_req(runs)
    out.n_per_request = len(requests)
    out.requests = stats.median(requests)
    out.calls_per_request = stats.median(values["calls_per_request"])
    out.usecs_per_request = stats.median(values["usecs_per_request"])
    if len(requests) < len(runs):
        out.per_request_note = (f"requests unknown in {len(runs) - len(requests)} of {len(runs)} "
                                f"run{'s' if len(runs) != 1 else ''}: no {REQUEST_SYSCALL} in the traced process's "
                                "strace -c table")
    if not runs:
        return out
    if base_runs is not None:
        base_values = per_req(base_runs)
        for name in PER_REQUEST:
            if not values[name] or not base_values[name]:
                setattr(out, f"{name}_verdict", "not_decided")
                side = "this experiment" if not values[name] else "the baseline"
                setattr(out, f"{name}_undecided_reason", f"requests unknown for {side}: no per-request figure")
                continue
            cmp = stats.compare(base_values[name], values[name], "neutral", margin=margin)
            setattr(out, f"{name}_delta_pct", stats.pct(cmp.delta_rel))
            setattr(out, f"{name}_verdict", cmp.verdict)
            setattr(out, f"{name}_undecided_reason", cmp.undecided_reason)
            setattr(out, f"{name}_detectable_pct", stats.pct(cmp.detectable))
            setattr(out, f"{name}_runs_needed", cmp.runs_needed)
        return out
    for name in PER_REQUEST:
        if not values[name]:
            continue
        setattr(out, f"{name}_delta_pct", 0.0)
        if len(values[name]) > 1:
            setattr(out, f"{name}_verdict", "equivalent")
            setattr(out, f"{name}_detectable_pct", stats.pct(stats.noise_floor(values[name])))
        else:
            setattr(out, f"{name}_verdict", "not_decided")
            setattr(out, f"{name}_undecided_reason", "one run: no noise estimate")
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
                texts[e.name] = syscall_summary(name, b, c)
            rows.append(SyscallRow(syscall=name, cells=cells, change_score=round(score, 4), summary=texts))
        rows.sort(key=lambda r: (-r.change_score, -(r.cells[base.name].seconds or 0.0), r.syscall))
        tables.append(SyscallTable(role=role, process=process, totals=totals, rows=rows))
    return tables


def syscall_summary(name: str, base: SyscallCell, cell: SyscallCell) -> str:
    """"readv 5.48 -> 26.1 calls/req (31776 -> 150481 calls)": per request first, the raw window after."""
    raw = f"{base.calls or 0:.0f} -> {cell.calls or 0:.0f} calls"
    if base.calls_per_request is None or cell.calls_per_request is None:
        return f"{name} {raw} (requests unknown: no per-request figure)"
    return f"{name} {per_request(base.calls_per_request)} -> {per_request(cell.calls_per_request)} calls/req ({raw})"


def share_of(part: float | None, total: float | None) -> float:
    return (part or 0.0) / total if total else 0.0
