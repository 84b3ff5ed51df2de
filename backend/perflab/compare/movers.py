"""Top movers: one ranked list of what changed most across results, telemetry and syscalls."""

from __future__ import annotations

from typing import Any

from perflab import stats
from perflab.compare.schemas import Cell, Mover, ResultRow, RoleTelemetry, SyscallTable, TelemetryRow
from perflab.compare.selection import Selection
from perflab.compare.telemetry import share_of, syscall_summary

TOP_MOVERS = 25


_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def _bytes(v: float) -> str:
    """1599875318 -> "1.5 GiB", the way the UI's formatBytes writes it, so a mover reads like the table."""
    i = 0
    while abs(v) >= 1024 and i < len(_BYTE_UNITS) - 1:
        v /= 1024
        i += 1
    return f"{v:.0f} B" if i == 0 else f"{v:.1f} {_BYTE_UNITS[i]}"


def _fmt(v: float | None, unit: str = "") -> str:
    if v is None:
        return "-"
    if unit in ("B/s", "bytes/s"):
        return f"{_bytes(v)}/s"
    if unit in ("B", "bytes"):
        return _bytes(v)
    if unit == "ms":
        return f"{v:.2f}ms"
    if unit == "%":
        return f"{v:.1f}%"
    if abs(v) >= 100 or float(v).is_integer():
        return f"{v:.0f}"
    return f"{v:.2f}"


def top_movers(sel: Selection, results: list[ResultRow], telemetry: list[RoleTelemetry], netqtop: list[TelemetryRow],
            syscalls: list[SyscallTable]) -> list[Mover]:
    base = sel.baseline.name
    out: list[tuple[float, Mover]] = []

    def add(section: Any, key: str, label: str, role: str | None, cells: dict[str, Cell], unit: str) -> None:
        b = cells[base]
        for name, c in cells.items():
            if name == base or c.n == 0 or b.n == 0 or c.delta_pct is None:
                continue
            text_ = f"{label}: {_fmt(b.median, unit)} -> {_fmt(c.median, unit)} ({c.delta_pct:+.1f}%)"
            out.append((min(abs(c.delta_pct), 1000.0), Mover(
                section=section, key=key, label=label, role=role, experiment=name, unit=unit, baseline_value=b.median,
                value=c.median, delta_pct=c.delta_pct, verdict=c.verdict, significant=stats.is_significant(c.verdict),
                text=text_)))

    for row in results:
        if row.key in ("wrk.requests",):
            continue  # follows requests/sec over a fixed duration: not a separate finding
        add("results", row.key, row.label, None, row.cells, row.unit)
    for t in telemetry:
        for trow in t.rows:
            add("telemetry", trow.key, f"{t.role} {trow.label}", t.role, trow.cells, trow.unit)
    for trow in netqtop:
        add("netqtop", trow.key, f"{trow.role} {trow.label}", trow.role, trow.cells, trow.unit)
    for table in syscalls:
        for srow in table.rows:
            b = srow.cells[base]
            for name, c in srow.cells.items():
                if name == base or not c.n or not b.n:
                    continue
                tot = table.totals[name]
                # Only syscalls that matter: at least 5% of the calls or time on one side.
                if max(share_of(c.calls, tot.calls), share_of(c.seconds, tot.seconds), share_of(b.calls, table.totals[base].calls),
                       share_of(b.seconds, table.totals[base].seconds)) < 0.05:
                    continue
                # Per request: a run that served more requests is not "worse" for making more calls.
                delta = c.calls_per_request_delta_pct
                magnitude = 1000.0 if delta is None else min(abs(delta), 1000.0)
                label = f"{table.role} {table.process} {srow.syscall} calls/req"
                change = f" ({delta:+.1f}%)" if delta is not None else ""
                out.append((magnitude, Mover(
                    section="syscalls", key=f"strace.{table.process}.{srow.syscall}.calls_per_request",
                    label=label, role=table.role, experiment=name, unit="calls/req",
                    baseline_value=b.calls_per_request, value=c.calls_per_request, delta_pct=delta,
                    verdict=c.calls_per_request_verdict, significant=stats.is_significant(c.calls_per_request_verdict),
                    text=f"{table.role} {table.process} {syscall_summary(srow.syscall, b, c)}{change}")))
    out.sort(key=lambda m: (not m[1].significant, -m[0], m[1].label))
    return [m for _, m in out[:TOP_MOVERS]]
