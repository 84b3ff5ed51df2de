"""The result table: wrk figures per experiment, with medians, deltas against the baseline and verdicts."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from perflab import stats
from perflab.compare.loading import Loaded, num
from perflab.compare.schemas import Cell

# (key, label, unit, direction): the table engineers write by hand, in their order.
RESULT_METRICS: tuple[tuple[str, str, str, stats.Direction], ...] = (
    ("wrk.latency_percentiles_ms.50", "p50 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.75", "p75 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.90", "p90 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.99", "p99 latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.avg", "Avg latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.stdev", "Stdev latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.max", "Max latency", "ms", "lower_is_better"),
    ("wrk.requests_per_sec", "Requests/sec", "req/s", "higher_is_better"),
    ("wrk.transfer_per_sec_bytes", "Transfer/sec", "B/s", "higher_is_better"),
    ("wrk.requests", "Requests", "requests", "higher_is_better"),
    ("wrk.non_2xx_3xx", "Non-2xx/3xx responses", "responses", "lower_is_better"),
    ("wrk.socket_errors", "Socket errors", "errors", "lower_is_better"),
)


def cell(values: list[float | None], base: list[float] | None, direction: stats.Direction,
         flags: list[str] | None = None, *, key: str = "", margins: Mapping[str, float] | None = None,
         alpha: float = stats.ALPHA) -> Cell:
    """One experiment's cell; `base` is the baseline's values (None for the baseline column itself)."""
    present = [v for v in values if v is not None]
    d = stats.describe(present)
    margin = stats.margin_for(key, margins)
    at = [i for i, v in enumerate(values) if v is not None]
    cell = Cell(n=d.n, median=d.median, min=d.min, max=d.max, values=values,
                noise_floor_pct=stats.pct(stats.noise_floor(present)), verdict="no_data", flags=flags or [],
                margin_pct=stats.pct(margin, 2), outliers=[at[i] for i in stats.outliers(present)],
                two_mode=stats.two_mode(present))
    if base is None:
        # The baseline column against itself: no change, and its own noise says what n vs n runs can detect.
        cell.delta, cell.delta_pct = (0.0, 0.0) if d.n else (None, None)
        cell.detectable_pct = cell.noise_floor_pct
        if d.n == 1:
            cell.verdict, cell.undecided_reason = "not_decided", "one run: no noise estimate"
        elif d.n:
            cell.verdict = "equivalent"
        return cell
    c = stats.compare(base, present, direction, margin=margin, alpha=alpha)
    cell.delta = c.delta_abs
    cell.delta_pct = stats.pct(c.delta_rel)
    cell.verdict = c.verdict
    cell.undecided_reason = c.undecided_reason
    cell.detectable_pct = stats.pct(c.detectable)
    cell.runs_needed = c.runs_needed
    if c.interval is not None:
        cell.ci_low, cell.ci_high = c.interval.diff_low, c.interval.diff_high
        cell.ci_low_pct, cell.ci_high_pct = stats.pct(c.interval.rel_low), stats.pct(c.interval.rel_high)
    return cell


def _path(data: dict[str, Any], dotted: str) -> float | None:
    if dotted == "socket_errors":
        sock = data.get("socket_errors")
        if not isinstance(sock, dict):
            return None
        return float(sum(num(v) or 0.0 for v in sock.values()))
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return num(cur)


def result_metrics(loaded: Loaded, run_ids: Iterable[uuid.UUID]) -> list[tuple[str, str, str, stats.Direction]]:
    """The fixed rows, plus any extra percentiles (wrk2's 99.9, 99.99) that some run reports."""
    extra: set[str] = set()
    for rid in run_ids:
        extra |= set((loaded.wrk.get(rid) or {}).get("latency_percentiles_ms") or {})
    extra -= {"50", "75", "90", "99"}
    rows = list(RESULT_METRICS)
    at = 4
    for p in sorted(extra, key=lambda x: float(x) if x.replace(".", "", 1).isdigit() else 0.0):
        rows.insert(at, (f"wrk.latency_percentiles_ms.{p}", f"p{p} latency", "ms", "lower_is_better"))
        at += 1
    return rows


def wrk_value(data: dict[str, Any] | None, key: str) -> float | None:
    if data is None:
        return None
    path = key.removeprefix("wrk.")
    if path.startswith("latency_percentiles_ms."):
        return num((data.get("latency_percentiles_ms") or {}).get(path.split(".", 1)[1]))
    return _path(data, path)
