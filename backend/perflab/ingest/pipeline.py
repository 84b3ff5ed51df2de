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
from typing import Any, cast

from sqlalchemy import Table, bindparam, delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.runs.models import RawChunk, Run, Sample, Series, Stream, Summary

log = logging.getLogger(__name__)

# Sources parsed line by line as they stream, and the parser kind for each.
STREAMING = {"vmstat": "vmstat", "pidstat": "pidstat", "netqtop": "netqtop"}
# Sources parsed once, whole, when the stream closes.
ONE_SHOT = {"wrk": "wrk", "strace-c": "strace-c", "ss-s": "ss-s", "ss-ltn": "ss-ltn", "dmesg": "dmesg",
            "nstat": "nstat"}
# Record fields that describe a sample rather than measure something.
NOT_METRICS = {"pid", "tid", "uid", "time", "timestamp", "since_boot", "cpu", "command", "user", "tz", "epoch"}


def encode_lines(lines: Iterable[tuple[float, float, str]]) -> bytes:
    return gzip.compress(json.dumps(list(lines), separators=(",", ":")).encode(), compresslevel=3)


def decode_lines(data: bytes) -> list[tuple[float, float, str]]:
    return [(x[0], x[1], x[2]) for x in json.loads(gzip.decompress(data))]


def stream_text(session: Session, stream: Stream) -> str:
    chunks = session.scalars(
        select(RawChunk.data_gz).where(RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id)
        .order_by(RawChunk.seq)
    )
    return "\n".join(line for data in chunks for _, _, line in decode_lines(data))


# The Core table, for executemany statements (typed as a Table, which __table__ is not).
SERIES_TABLE = cast(Table, Series.__table__)


def series_key(metric: str, labels: dict[str, Any]) -> str:
    if not labels:
        return metric
    return metric + "{" + ",".join(f"{k}={labels[k]}" for k in sorted(labels)) + "}"


class SeriesCache:
    """Series ids of one stream. New series are created in one statement per batch, not one per series."""

    def __init__(self, session: Session, stream: Stream) -> None:
        self.session = session
        self.stream = stream
        self.ids: dict[str, int] = {
            key: sid for key, sid in session.execute(select(Series.key, Series.id).where(Series.stream_id == stream.id))
        }

    def ensure(self, wanted: dict[str, tuple[str, dict[str, Any], str]]) -> None:
        """wanted: key -> (metric, labels, unit) for every key seen in this batch."""
        missing = [k for k in wanted if k not in self.ids]
        if not missing:
            return
        st = self.stream
        rows = [
            {"run_id": st.run_id, "stream_id": st.id, "role": st.role, "source": st.source, "metric": wanted[k][0],
             "key": k, "labels": wanted[k][1], "unit": wanted[k][2], "points": 0, "stats": {}}
            for k in missing
        ]
        # executemany form: compiled once and cached, unlike a VALUES list built per batch.
        self.session.connection().execute(
            insert(SERIES_TABLE).on_conflict_do_nothing(index_elements=["run_id", "stream_id", "key"]), rows)
        self.ids.update({key: sid for key, sid in self.session.execute(
            select(Series.key, Series.id).where(Series.stream_id == st.id, Series.key.in_(missing)))})


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
            queues = [(q.get("queue"), q) for q in block.get("queues", [])]
            if block.get("total"):
                queues.append(("total", block["total"]))
            for queue, q in queues:
                for metric, unit in (("bps", "B/s"), ("pps", "/s"), ("avg_size_bytes", "B")):
                    if (f := _numeric(q.get(metric))) is not None:
                        yield f"{direction}.{metric}", {"queue": queue}, unit, f
                # Packet-size histogram: how many packets fell in each size bucket this interval.
                for bucket, count in (q.get("buckets") or {}).items():
                    if (f := _numeric(count)) is not None:
                        yield f"{direction}.packets_{bucket}", {"queue": queue}, "packets", f


def _copy_text(session: Session, payload: str) -> None:
    if not payload:
        return
    raw = session.connection().connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur, cur.copy("COPY sample (run_id, series_id, t, value) FROM STDIN") as copy:
        copy.write(payload)


def parse_pending(session: Session, stream: Stream, fresh: dict[int, list[Any]] | None = None) -> int:
    """Parse every chunk that follows the last parsed one without a gap. Returns samples stored.

    `fresh` holds lines of chunks stored by this very request, so they need not be read back."""
    kind = STREAMING.get(stream.source)
    if kind is None:
        # Not a streaming kind: nothing to do per chunk, but keep parsed_seq moving for completeness checks.
        stream.parsed_seq = _contiguous_max(session, stream)
        return 0
    fresh = fresh or {}
    if fresh and min(fresh) == stream.parsed_seq + 1 and all(s in fresh for s in range(min(fresh), max(fresh) + 1)):
        later = session.scalars(select(RawChunk.seq).where(
            RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id, RawChunk.seq > max(fresh)).limit(1)
        ).first()
    else:
        later = -1
    if later is None:
        # Everything to parse arrived in this request: use it as is.
        chunks: list[Any] = [(seq, fresh[seq]) for seq in sorted(fresh)]
    else:
        chunks = [(seq, decode_lines(data)) for seq, data in session.execute(
            select(RawChunk.seq, RawChunk.data_gz)
            .where(RawChunk.run_id == stream.run_id, RawChunk.stream_id == stream.id,
                   RawChunk.seq > stream.parsed_seq)
            .order_by(RawChunk.seq)
        ).all()]
    if not chunks or chunks[0][0] != stream.parsed_seq + 1:
        return 0
    state = stream.parser_state or {}
    parser = parsers.line_parser(kind)
    if state.get("parser"):
        parser = type(parser).from_state(state["parser"])
    buf = PointBuffer(stream.source, _units(kind))
    warnings: list[str] = list(state.get("warnings", []))
    expected = stream.parsed_seq + 1
    for seq, lines in chunks:
        if seq != expected:
            break
        for wall, _mono, text in lines:
            try:
                records = parser.feed(text)
            except parsers.ParseError as exc:
                if len(warnings) < 50:
                    warnings.append(f"chunk {seq}: {exc}")
                continue
            if not records:
                continue
            buf.add(records, datetime.fromtimestamp(wall, UTC).isoformat())
        expected = seq + 1
    stored = _store(session, stream, buf)
    stream.parsed_seq = expected - 1
    stream.samples += stored
    last_wall = state.get("last_wall")
    if chunks and chunks[-1][1]:
        last_wall = chunks[-1][1][-1][0]
    stream.parser_state = {"parser": parser.state(), "warnings": warnings[:50], "last_wall": last_wall}
    return stored


class PointBuffer:
    """Samples parsed from a batch, as (series key, timestamp text, value), and the series they need.

    COPY text is built from these directly; keys are cached per (metric, labels) because a pidstat
    record yields a dozen metrics for the same process, line after line.
    """

    def __init__(self, source: str, units: dict[str, str]) -> None:
        self.source = source
        self.units = units
        self.points: list[tuple[str, str, float]] = []
        self.wanted: dict[str, tuple[str, dict[str, Any], str]] = {}
        self._keys: dict[tuple[str, str], str] = {}

    def add(self, records: list[dict[str, Any]], t: str) -> None:
        for record in records:
            for metric, labels, unit, value in records_to_points(self.source, record, self.units):
                label_text = repr(labels) if labels else ""
                key = self._keys.get((metric, label_text))
                if key is None:
                    key = self._keys[(metric, label_text)] = series_key(metric, labels)
                    self.wanted.setdefault(key, (metric, labels, unit))
                self.points.append((key, t, value))


def _store(session: Session, stream: Stream, buf: PointBuffer) -> int:
    """COPY the points into `sample`, creating missing series first. Returns how many were stored."""
    points, wanted = buf.points, buf.wanted
    cache = SeriesCache(session, stream)
    cache.ensure(wanted)
    ids = cache.ids
    run_id = str(stream.run_id)
    if len({(k, t) for k, t, _ in points}) != len(points):
        # Two values for one series at one instant (e.g. lines stamped alike): keep the last, as a
        # re-sent sample would overwrite, rather than failing the whole batch on the primary key.
        points = list({(k, t): (k, t, v) for k, t, v in points}.values())
    _copy_text(session, "".join(f"{run_id}\t{ids[k]}\t{t}\t{v!r}\n" for k, t, v in points))
    counts: dict[int, int] = {}
    for k, _, _ in points:
        sid = ids[k]
        counts[sid] = counts.get(sid, 0) + 1
    if counts:
        table = SERIES_TABLE
        # Core executemany (not ORM bulk update, which wants whole rows): one round trip per batch.
        session.connection().execute(
            update(table).where(table.c.id == bindparam("sid")).values(points=table.c.points + bindparam("n")),
            [{"sid": sid, "n": n} for sid, n in counts.items()],
        )
    return len(points)


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
    t = datetime.fromtimestamp(wall, UTC).isoformat() if wall is not None else datetime.now(UTC).isoformat()
    buf = PointBuffer(stream.source, _units(kind))
    buf.add(records, t)
    stored = _store(session, stream, buf)
    stream.samples += stored
    stream.parser_state = {**state, "parser": parser.state()}
    return stored


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
    flush_parser(session, stream)
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
        session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind=kind, data=data,
                            warnings=list(data.get("warnings", []))))
        if kind == "wrk":
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
            averages = averages_from_rows(session, stream)
            source = "rows"
        if averages:
            session.add(Summary(run_id=run.id, stream_id=stream.id, role=stream.role, kind="pidstat-averages",
                                data={"averages": averages, "computed_from": source}, warnings=[]))
    refresh_series_stats(session, stream, run)


def averages_from_rows(session: Session, stream: Stream) -> list[dict[str, Any]]:
    """Per process, the mean of every pidstat metric over the run (pidstat's own Average semantics)."""
    rows = session.execute(
        select(Series.labels, Series.metric, func.avg(Sample.value))
        .join(Sample, (Sample.series_id == Series.id) & (Sample.run_id == Series.run_id))
        .where(Series.stream_id == stream.id)
        .group_by(Series.id)
    ).all()
    by_proc: dict[tuple[Any, ...], dict[str, Any]] = {}
    for labels, metric, mean in rows:
        key = (labels.get("command"), labels.get("pid"), labels.get("tid"))
        entry = by_proc.setdefault(key, {k: v for k, v in labels.items()})
        entry[metric] = round(float(mean), 2)
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
