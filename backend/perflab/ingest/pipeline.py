"""From stored raw chunks to series, samples and summaries.

Chunks are parsed strictly in seq order, resuming the line parser from the state kept on the stream,
so the live page is current while a run streams and a retried or reordered batch is never parsed twice.
Everything here can be rerun from the raw chunks (`perflab reparse RUN`).
"""

from __future__ import annotations

import gzip
import json
import logging
import math
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.runs.models import RawChunk, Run, Sample, Series, Stream, Summary

log = logging.getLogger(__name__)

# Sources parsed line by line as they stream, and the parser kind for each.
STREAMING = {"vmstat": "vmstat", "pidstat": "pidstat", "netqtop": "netqtop"}
# Sources parsed once, whole, when the stream closes.
ONE_SHOT = {"wrk": "wrk", "strace-c": "strace-c"}
# Record fields that describe a sample rather than measure something.
NOT_METRICS = {"pid", "tid", "uid", "time", "timestamp", "since_boot", "cpu", "command", "user", "tz", "epoch"}


def encode_lines(lines: Iterable[tuple[float, float, str]]) -> bytes:
    return gzip.compress(json.dumps(list(lines), separators=(",", ":")).encode(), compresslevel=3)


def decode_lines(data: bytes) -> list[tuple[float, float, str]]:
    return [tuple(x) for x in json.loads(gzip.decompress(data))]  # type: ignore[misc]


def stream_text(session: Session, stream: Stream) -> str:
    chunks = session.scalars(
        select(RawChunk.data_gz).where(RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id)
        .order_by(RawChunk.seq)
    )
    return "\n".join(line for data in chunks for _, _, line in decode_lines(data))


class SeriesCache:
    """Series ids of one stream, created on first sight of a metric."""

    def __init__(self, session: Session, stream: Stream) -> None:
        self.session = session
        self.stream = stream
        self.by_key = {s.key: s for s in session.scalars(select(Series).where(Series.stream_id == stream.id))}

    def get(self, metric: str, labels: dict[str, Any], unit: str) -> Series:
        key = metric if not labels else metric + "{" + ",".join(f"{k}={labels[k]}" for k in sorted(labels)) + "}"
        found = self.by_key.get(key)
        if found is None:
            found = Series(
                run_id=self.stream.run_id, stream_id=self.stream.id, role=self.stream.role,
                source=self.stream.source, metric=metric, key=key, labels=labels, unit=unit, points=0, stats={},
            )
            self.session.add(found)
            self.session.flush()
            self.by_key[key] = found
        return found


def _units(kind: str) -> dict[str, str]:
    module = getattr(parsers, kind.replace("-", "_"), None)
    units = getattr(module, "METRICS", None)
    return dict(units) if isinstance(units, dict) else {}


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def records_to_points(
    source: str, record: dict[str, Any], units: dict[str, str]
) -> Iterator[tuple[str, dict[str, Any], str, float]]:
    """(metric, labels, unit, value) for every number a record carries."""
    if source == "vmstat":
        if record.get("since_boot"):
            return  # averages since boot, not a sample of the run
        for k, v in record.items():
            if k not in NOT_METRICS and (f := _numeric(v)) is not None:
                yield k, {}, units.get(k, ""), f
    elif source == "pidstat":
        labels = {"command": record.get("command", "?"), "pid": record.get("pid")}
        if record.get("tid") is not None:
            labels["tid"] = record["tid"]
        for k, v in record.items():
            if k not in NOT_METRICS and (f := _numeric(v)) is not None:
                yield k, labels, units.get(k, ""), f
    elif source == "netqtop":
        for direction in ("tx", "rx"):
            block = record.get(direction) or {}
            for q in block.get("queues", []):
                for metric in ("bps", "pps", "avg_size_bytes"):
                    if (f := _numeric(q.get(metric))) is not None:
                        yield f"{direction}.{metric}", {"queue": q.get("queue")}, "", f
            total = block.get("total") or {}
            for metric in ("bps", "pps", "avg_size_bytes"):
                if (f := _numeric(total.get(metric))) is not None:
                    yield f"{direction}.{metric}", {"queue": "total"}, "", f


def _copy_samples(session: Session, rows: list[tuple[Any, int, datetime, float]]) -> None:
    if not rows:
        return
    raw = session.connection().connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur, cur.copy("COPY sample (run_id, series_id, t, value) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def parse_pending(session: Session, stream: Stream) -> int:
    """Parse every chunk that follows the last parsed one without a gap. Returns samples stored."""
    kind = STREAMING.get(stream.source)
    if kind is None:
        # Not a streaming kind: nothing to do per chunk, but keep parsed_seq moving for completeness checks.
        stream.parsed_seq = _contiguous_max(session, stream)
        return 0
    chunks = session.execute(
        select(RawChunk.seq, RawChunk.data_gz)
        .where(RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id, RawChunk.seq > stream.parsed_seq)
        .order_by(RawChunk.seq)
    ).all()
    if not chunks or chunks[0].seq != stream.parsed_seq + 1:
        return 0
    state = stream.parser_state or {}
    parser = parsers.line_parser(kind)
    if state.get("parser"):
        parser = type(parser).from_state(state["parser"])
    units = _units(kind)
    cache = SeriesCache(session, stream)
    rows: list[tuple[Any, int, datetime, float]] = []
    warnings: list[str] = list(state.get("warnings", []))
    expected = stream.parsed_seq + 1
    for seq, data in chunks:
        if seq != expected:
            break
        for wall, _mono, text in decode_lines(data):
            try:
                records = parser.feed(text)
            except parsers.ParseError as exc:
                if len(warnings) < 50:
                    warnings.append(f"chunk {seq}: {exc}")
                continue
            if not records:
                continue
            t = datetime.fromtimestamp(wall, UTC)
            for record in records:
                for metric, labels, unit, value in records_to_points(stream.source, record, units):
                    series = cache.get(metric, labels, unit)
                    rows.append((stream.run_id, series.id, t, value))
                    series.points += 1
        expected = seq + 1
    _copy_samples(session, rows)
    stream.parsed_seq = expected - 1
    stream.samples += len(rows)
    stream.parser_state = {"parser": parser.state(), "warnings": warnings[:50]}
    return len(rows)


def _contiguous_max(session: Session, stream: Stream) -> int:
    seqs = session.scalars(
        select(RawChunk.seq).where(RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id,
                                   RawChunk.seq > stream.parsed_seq).order_by(RawChunk.seq)
    ).all()
    last = stream.parsed_seq
    for s in seqs:
        if s != last + 1:
            break
        last = s
    return last


def stream_complete(stream: Stream) -> bool:
    return stream.closed_seq is not None and stream.parsed_seq >= stream.closed_seq


def finish_stream(session: Session, stream: Stream, run: Run) -> None:
    """Once every chunk up to the closing one is here: one-shot summaries and steady-state stats."""
    session.execute(delete(Summary).where(Summary.stream_id == stream.id))
    kind = ONE_SHOT.get(stream.source)
    if kind is not None:
        text = stream_text(session, stream)
        try:
            data = parsers.parse(kind, text)
        except parsers.ParseError as exc:
            stream.error = f"could not parse the {kind} output: {exc}"
            return
        session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind=kind, data=data,
                            warnings=list(data.get("warnings", []))))
        if kind == "wrk":
            run.headline = headline_from_wrk(data)
    elif stream.source == "pidstat":
        state = (stream.parser_state or {}).get("parser")
        if state:
            parser = type(parsers.line_parser("pidstat")).from_state(state)
            parser.finish()
            averages = getattr(parser, "averages", [])
            if averages:
                session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind="pidstat-averages",
                                    data={"averages": averages}, warnings=[]))
    refresh_series_stats(session, stream, run)


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
        "non_2xx_3xx": int(data.get("non_2xx_3xx") or 0),
        "socket_errors": sum(int(v or 0) for v in sock.values()),
        "errors": errors,
    }


# Steady state: drop this share of the run at each end (warm-up, cool-down), at least one sample.
TRIM_FRACTION = 0.1


def refresh_series_stats(session: Session, stream: Stream, run: Run) -> None:
    from sqlalchemy import text

    rows = session.execute(
        text(
            """
            WITH ranked AS (
              SELECT series_id, value,
                     row_number() OVER (PARTITION BY series_id ORDER BY t) AS i,
                     count(*) OVER (PARTITION BY series_id) AS n
              FROM sample WHERE run_id = :run AND series_id IN (SELECT id FROM series WHERE stream_id = :stream)
            )
            SELECT series_id, avg(value), min(value), max(value), stddev_samp(value), count(*),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY value)
            FROM ranked
            WHERE n < 5 OR (i > greatest(1, floor(n * :trim)) AND i <= n - greatest(1, floor(n * :trim)))
            GROUP BY series_id
            """
        ),
        {"run": run.id, "stream": stream.id, "trim": TRIM_FRACTION},
    ).all()
    by_id = {r[0]: r for r in rows}
    for series in session.scalars(select(Series).where(Series.stream_id == stream.id)):
        r = by_id.get(series.id)
        if r is None:
            continue
        series.stats = {"mean": r[1], "min": r[2], "max": r[3], "stdev": r[4], "n": r[5], "median": r[6],
                        "trim_fraction": TRIM_FRACTION}


def reparse_stream(session: Session, stream: Stream, run: Run) -> None:
    ids = select(Series.id).where(Series.stream_id == stream.id)
    session.execute(delete(Sample).where(Sample.run_id == stream.run_id, Sample.series_id.in_(ids)))
    session.execute(delete(Series).where(Series.stream_id == stream.id))
    session.execute(delete(Summary).where(Summary.stream_id == stream.id))
    stream.parsed_seq = 0
    stream.samples = 0
    stream.parser_state = {}
    stream.error = None
    session.flush()
    parse_pending(session, stream)
    if stream_complete(stream):
        finish_stream(session, stream, run)
