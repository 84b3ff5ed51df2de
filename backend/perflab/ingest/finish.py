"""Finishing a stream once its closing chunk is parsed: the line parser's tail, one-shot summaries
(wrk, strace -c, ...), pidstat averages, compaction of live blocks into chunks, steady-state statistics;
and reparsing a stream from its raw chunks.
"""

from __future__ import annotations

import json
import math
from array import array
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import repeat
from operator import mul, sub
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.ingest.buffer import LOAD_SUMMARY, ONE_SHOT, STREAMING, PointBuffer, _units
from perflab.ingest.store import LIVE_POINTS, parse_pending, store_points, stream_complete, stream_text
from perflab.runs.models import Run, Series, SeriesBlock, SeriesChunk, Stream, Summary
from perflab.series import service as series_service


def flush_parser(session: Session, stream: Stream) -> int:
    """At the end of a stream, the records a line parser still holds (netqtop's last interval)."""
    kind = STREAMING.get(stream.source)
    state = stream.parser_state or {}
    if kind is None or not state.get("parser"):
        return 0
    parser = type(parsers.line_parser(kind)).from_state(state["parser"])
    try:
        records = parser.finish()
    except parsers.ParseError as exc:
        stream.error = stream.error or f"the {kind} output ended mid-way: {exc}"
        return 0
    if not records or stream.source == "pidstat":
        return 0  # pidstat's finish() only completes its Average lines, summarised separately
    wall = state.get("last_wall")
    t = round((wall if wall is not None else datetime.now(UTC).timestamp()) * 1e6)
    buf = PointBuffer(stream.source, _units(kind))
    buf.add(records, t)
    stored = store_points(session, stream, buf, live=True)
    stream.samples += stored
    stream.parser_state = {**(stream.parser_state or {}), "parser": parser.state()}  # with store_points' counts
    return stored


def finish_stream(session: Session, stream: Stream, run: Run,
                  known: list[tuple[int, list[int], list[float]]] | None = None) -> None:
    """Once every chunk up to the closing one is here: one-shot summaries and steady-state stats.

    `known`: every sample of the stream, as the caller just stored it (an import), so the statistics
    need not read it back."""
    session.execute(delete(Summary).where(Summary.stream_id == stream.id))
    if flush_parser(session, stream):
        known = None  # the parser's tail added samples the caller does not have
    every = None
    if known is None and STREAMING.get(stream.source) is not None:
        # Read once for the averages, the compaction and the statistics (each read it whole before).
        every = known = _stream_points(session, stream)
    kind = ONE_SHOT.get(stream.source)
    if kind is not None and stream.lines == 0:
        # Nothing to parse: the agent's error (if any) already says why; don't bury it under a parse error.
        # A kernel log without a new message during the run is a quiet kernel, not a failure.
        if stream.error is None and kind != "dmesg":
            stream.error = f"the {kind} collector produced no output"
    elif kind is not None:
        text = stream_text(session, stream)
        try:
            data = parsers.parse(kind, text)
        except parsers.ParseError as exc:
            stream.error = f"could not parse the {kind} output: {exc}"
            return
        stored = LOAD_SUMMARY if kind in parsers.LOAD_KINDS else kind
        session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind=stored, data=data,
                            warnings=list(data.get("warnings", []))))
        if stored == LOAD_SUMMARY:
            run.headline = headline_from_wrk(data)
    elif stream.source == "pidstat":
        state = (stream.parser_state or {}).get("parser")
        averages: list[dict[str, Any]] = []
        if state:
            parser = type(parsers.line_parser("pidstat")).from_state(state)
            parser.finish()
            averages = list(getattr(parser, "averages", []))
        source = "pidstat"
        if not averages:
            # `pidstat -h` (what the agent runs) prints no Average lines: average the rows, as pidstat would.
            averages = averages_from_rows(session, stream, known)
            source = "rows"
        if averages:
            session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind="pidstat-averages",
                                data={"averages": averages, "computed_from": source}, warnings=[]))
    compact_stream(session, stream, every)
    refresh_series_stats(session, stream, run, known)


def _series_ids(session: Session, stream: Stream) -> list[int]:
    # By run and stream: the unique index (run_id, stream_id, key) leads with run_id.
    return list(session.scalars(select(Series.id).where(Series.run_id == stream.run_id,
                                                        Series.stream_id == stream.id).order_by(Series.id)))


def _stream_points(session: Session, stream: Stream) -> list[tuple[int, list[int], list[float]]]:
    """Every sample of every series of the stream, as (series id, times, values)."""
    ids = _series_ids(session, stream)
    points = series_service.read_points(session, [(stream.run_id, sid) for sid in ids])
    return [(sid, *points.get((stream.run_id, sid), ([], []))) for sid in ids]


def compact_stream(session: Session, stream: Stream,
                   every: list[tuple[int, list[int], list[float]]] | None = None) -> None:
    """A closed stream's series become one chunk each: its blocks (a row per batch, raw doubles) and
    any chunks merged into a few bytes per sample. `every`: all of the stream's samples, read already."""
    if every is None:
        series_service.compact(session, run_id=stream.run_id, stream_id=stream.id,
                               series_ids=_series_ids(session, stream))
    else:
        series_service.compact(session, run_id=stream.run_id, stream_id=stream.id,
                               series_ids=[e[0] for e in every],
                               points={(stream.run_id, sid): (t, v) for sid, t, v in every})
    if LIVE_POINTS in (stream.parser_state or {}):
        # The compaction counted every series' samples on its row: the live counts are done with.
        stream.parser_state = {k: v for k, v in stream.parser_state.items() if k != LIVE_POINTS}


def _points_of(session: Session, run_id: Any, sids: list[int],
               known: list[tuple[int, list[int], list[float]]] | None) -> dict[Any, series_service.Points]:
    """Every sample of these series: from `known` when it holds them all, else read back."""
    if known is not None:
        have = {sid: (t, v) for sid, t, v in known}
        if set(sids) <= have.keys():
            return {(run_id, sid): have[sid] for sid in sids}
    return series_service.read_points(session, [(run_id, sid) for sid in sids])


def averages_from_rows(session: Session, stream: Stream,
                       known: list[tuple[int, list[int], list[float]]] | None = None) -> list[dict[str, Any]]:
    """Per process, the mean of every pidstat metric over the run (pidstat's own Average semantics)."""
    series = session.execute(
        select(Series.id, Series.labels, Series.metric).where(Series.run_id == stream.run_id,
                                                             Series.stream_id == stream.id)
    ).all()
    points = _points_of(session, stream.run_id, [sid for sid, _, _ in series], known)
    by_proc: dict[tuple[Any, ...], dict[str, Any]] = {}
    for sid, labels, metric in series:
        values = points.get((stream.run_id, sid), ([], []))[1]
        if not values:
            continue
        key = (labels.get("command"), labels.get("pid"), labels.get("tid"))
        entry = by_proc.setdefault(key, {k: v for k, v in labels.items()})
        entry[metric] = round(math.fsum(values) / len(values), 2)
    return sorted(by_proc.values(), key=lambda e: (str(e.get("command")), e.get("pid") or 0))


def headline_from_wrk(data: dict[str, Any]) -> dict[str, Any]:
    pct = data.get("latency_percentiles_ms") or {}
    lat = data.get("latency_ms") or {}
    sock = data.get("socket_errors") or {}
    errors = int(data.get("non_2xx_3xx") or 0) + sum(int(v or 0) for v in sock.values())
    return {
        "requests_per_sec": data.get("requests_per_sec"),
        "latency_p50_ms": pct.get("50"),
        "latency_p99_ms": pct.get("99"),
        "latency_avg_ms": lat.get("avg"),
        "transfer_per_sec_bytes": data.get("transfer_per_sec_bytes"),
        "requests": data.get("requests"),
        "non_2xx_3xx": int(data.get("non_2xx_3xx") or 0),
        "socket_errors": sum(int(v or 0) for v in sock.values()),
        "errors": errors,
    }


# Steady state: drop this share of the run at each end (warm-up, cool-down), at least one sample.
TRIM_FRACTION = 0.1


def steady_stats(values: Sequence[float]) -> dict[str, Any] | None:
    """Statistics of a time-ordered series without its first and last TRIM_FRACTION (5+ samples)."""
    n = len(values)
    if not n:
        return None
    if n >= 5:
        cut = max(1, math.floor(n * TRIM_FRACTION))
        values = values[cut:n - cut]
        n = len(values)
    if isinstance(values, array) and values.typecode in _INTEGER_CODES:
        counted = _counted_stats(values)
        if counted is not None:
            return counted
    mean = math.fsum(values) / n
    dev = list(map(sub, values, repeat(mean)))
    stdev = math.sqrt(math.fsum(map(mul, dev, dev)) / (n - 1)) if n > 1 else None
    ordered = sorted(values)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"mean": mean, "min": ordered[0], "max": ordered[-1], "stdev": stdev, "n": n, "median": median,
            "trim_fraction": TRIM_FRACTION}


_INTEGER_CODES = frozenset("bhilqBHILQ")
# Integers up to this are exact as doubles: fsum of them is their exact sum, rounded once.
_EXACT = 1 << 53


def _counted_stats(values: array[int]) -> dict[str, Any] | None:
    """steady_stats of integers that repeat (an import's vmstat columns: run queue, %CPU, memory sizes), bit
    for bit, from how often each value occurs: each (value - mean) ** 2 is rounded as steady_stats rounds it,
    then they are summed exactly and rounded once, as fsum does; the median and extremes are read from the
    sorted distinct values. A 94,000-sample series: a C count and a few hundred operations, where sorting it
    and two passes of float objects cost ~20 ms. None when most values are distinct (or beyond 2**53)."""
    n = len(values)
    if n < 64 or len(set(values[:1024])) > 256:
        return None
    counts = Counter(values)
    if len(counts) > n // 4:
        return None
    keys = sorted(counts)
    if keys[0] < -_EXACT or keys[-1] > _EXACT:
        return None
    mean = float(sum(k * c for k, c in counts.items())) / n  # int -> float rounds once, as fsum
    stdev = None
    if n > 1:
        terms = [(c, *((k - mean) * (k - mean)).as_integer_ratio()) for k, c in counts.items()]
        scale = max(q for _, _, q in terms)  # powers of two: one denominator for every term
        total = sum(c * p * (scale // q) for c, p, q in terms)
        stdev = math.sqrt((total / scale) / (n - 1))  # int / int rounds once, as fsum
    mid = n // 2
    seen = 0
    below: int | None = None  # ordered[mid - 1]
    median: float = 0
    for k in keys:
        seen += counts[k]
        if below is None and seen >= mid:
            below = k
        if seen > mid:
            median = k if n % 2 else (below + k) / 2  # type: ignore[operator]
            break
    return {"mean": mean, "min": keys[0], "max": keys[-1], "stdev": stdev, "n": n, "median": median,
            "trim_fraction": TRIM_FRACTION}


def refresh_series_stats(session: Session, stream: Stream, run: Run,
                         known: list[tuple[int, list[int], list[float]]] | None = None) -> None:
    ids = _series_ids(session, stream)
    points = _points_of(session, run.id, ids, known)
    stats = {sid: steady_stats(points.get((run.id, sid), ([], []))[1]) for sid in ids}
    stats = {sid: st for sid, st in stats.items() if st is not None}
    if stats:
        # One statement: assigned to ORM rows, the flush sent an UPDATE per series (~300 for pidstat).
        # A JSON object {id: stats} as one parameter (a text[] costs psycopg a regex escape per element).
        session.execute(
            text("UPDATE series SET stats = e.value FROM jsonb_each(CAST(:stats AS jsonb)) AS e"
                 " WHERE series.run_id = :run AND series.id = CAST(e.key AS bigint)"),
            {"run": run.id, "stats": json.dumps({str(sid): st for sid, st in stats.items()})})


def reparse_stream(session: Session, stream: Stream, run: Run) -> None:
    of_stream = (Series.run_id == stream.run_id) & (Series.stream_id == stream.id)
    ids = select(Series.id).where(of_stream)
    session.execute(delete(SeriesChunk).where(SeriesChunk.run_id == stream.run_id, SeriesChunk.series_id.in_(ids)))
    session.execute(delete(SeriesBlock).where(SeriesBlock.run_id == stream.run_id, SeriesBlock.stream_id == stream.id))
    session.execute(delete(Series).where(of_stream))
    session.execute(delete(Summary).where(Summary.stream_id == stream.id))
    stream.parsed_seq = 0
    stream.samples = 0
    stream.parser_state = {}
    stream.error = None
    session.flush()
    parse_pending(session, stream)
    if stream_complete(stream):
        finish_stream(session, stream, run)
