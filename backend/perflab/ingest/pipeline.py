"""From stored raw chunks to series, series chunks and summaries.

Chunks are parsed strictly in seq order, resuming the line parser from the state kept on the stream,
so the live page is current while a run streams and a retried or reordered batch is never parsed twice.
Everything here can be rerun from the raw chunks (`perflab reparse RUN`).
"""

from __future__ import annotations

import functools
import gzip
import json
import logging
import math
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from itertools import repeat
from operator import itemgetter, mul, sub
from typing import Any, cast

from sqlalchemy import Table, delete, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.parsers._common import check_text, split_lines
from perflab.runs.models import RawChunk, Run, Series, SeriesBlock, SeriesChunk, Stream, Summary
from perflab.series import codec
from perflab.series import service as series_service

log = logging.getLogger(__name__)

# Sources parsed line by line as they stream, and the parser kind for each.
STREAMING = {"vmstat": "vmstat", "pidstat": "pidstat", "netqtop": "netqtop"}
# Sources parsed once, whole, when the stream closes.
ONE_SHOT = {"wrk": "wrk", "strace-c": "strace-c", "ss-s": "ss-s", "ss-ltn": "ss-ltn", "dmesg": "dmesg",
            "nstat": "nstat", "k6": "k6", "vegeta": "vegeta", "hey": "hey", "ab": "ab"}
# Every load generator's result is wrk's document (parsers/_load.py): stored as the run's "wrk"
# summary, which validity, verdicts, trends, findings and the headline read; data["tool"] says which.
LOAD_SUMMARY = "wrk"
# Record fields that describe a sample rather than measure something.
NOT_METRICS = {"pid", "tid", "uid", "time", "timestamp", "since_boot", "cpu", "command", "user", "tz", "epoch"}


def encode_lines(lines: Iterable[tuple[float, float, str]]) -> bytes:
    # Level 1: raw text is the bulk of what a run stores, but gzip -3 costs twice the time for ~10% less.
    return gzip.compress(json.dumps(list(lines), separators=(",", ":")).encode(), compresslevel=1)


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
        self.ids: dict[str, int] = {}
        # Samples each series holds so far: the next chunk of a series is numbered by its first sample.
        self.points: dict[int, int] = {}
        for key, sid, points in session.execute(
            text("SELECT key, id, points FROM series WHERE stream_id = :st"), {"st": stream.id}
        ):
            self.ids[key] = sid
            self.points[sid] = points

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
        for key, sid, points in self.session.execute(
            select(Series.key, Series.id, Series.points).where(Series.stream_id == st.id, Series.key.in_(missing))
        ):
            self.ids[key] = sid
            self.points[sid] = points


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


def parse_pending(session: Session, stream: Stream, fresh: dict[int, list[Any]] | None = None) -> int:
    """Parse every chunk that follows the last parsed one without a gap. Returns samples stored.

    `fresh` holds lines of chunks stored by this very request, so they need not be read back."""
    kind = STREAMING.get(stream.source)
    if kind is None:
        # Not a streaming kind: nothing to do per chunk, but keep parsed_seq moving for completeness checks.
        stream.parsed_seq = _contiguous_max(session, stream)
        return 0
    fresh = fresh or {}
    # The stream row is locked and max_seq counts every chunk stored, this request's included: no
    # chunk beyond the fresh ones exists when max_seq is the last fresh one.
    if (fresh and min(fresh) == stream.parsed_seq + 1 and stream.max_seq == max(fresh)
            and all(s in fresh for s in range(min(fresh), max(fresh) + 1))):
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
    parsed = Parsed(stream, state)
    expected = stream.parsed_seq + 1
    for seq, lines in chunks:
        if seq != expected:
            break
        for wall, _mono, line in lines:
            records = parsed.feed(seq, line)
            if records:
                parsed.buf.add(records, round(wall * 1e6))
        expected = seq + 1
    last_wall = state.get("last_wall")
    if chunks and chunks[-1][1]:
        last_wall = chunks[-1][1][-1][0]
    return store_parsed(session, stream, parsed, last_seq=expected - 1, last_wall=last_wall)


class Parsed:
    """A streaming stream's line parser (resumed from its saved state), the samples it produced and its
    warnings. An import uses one directly: it parses its text once, to time the lines and to store them."""

    def __init__(self, stream: Stream, state: dict[str, Any] | None = None) -> None:
        kind = STREAMING[stream.source]
        state = state or {}
        parser = parsers.line_parser(kind)
        self.parser = type(parser).from_state(state["parser"]) if state.get("parser") else parser
        self.buf = PointBuffer(stream.source, _units(kind))
        self.warnings: list[str] = list(state.get("warnings", []))

    def feed(self, seq: int, text: str) -> list[dict[str, Any]]:
        try:
            return self.parser.feed(text)
        except parsers.ParseError as exc:
            if len(self.warnings) < 50:
                self.warnings.append(f"chunk {seq}: {exc}")
            return []


class LineParse:
    """A whole text parsed by a streaming kind's line parser, each line's records kept: an import parses
    its text once, for the preview (`doc`, what parsers.parse returns), the lines' times and the samples.
    A ParseError propagates, as from parsers.parse."""

    def __init__(self, kind: str, text: str) -> None:
        check_text(text)
        parser = parsers.line_parser(kind)
        self.lines = split_lines(text)
        feed = parser.feed
        self.records: list[list[dict[str, Any]]] = [feed(line) for line in self.lines]
        # What parse_pending would have saved: the state before finish(), which flush_parser calls later.
        self.state: dict[str, Any] = json.loads(json.dumps(parser.state()))
        tail = parser.finish()
        self.doc = parser.result([r for recs in self.records for r in recs] + tail)


def store_parsed(session: Session, stream: Stream, parsed: Parsed, *, last_seq: int, last_wall: float | None,
                 live: bool = True) -> int:
    """Store what `parsed` holds as parsed up to raw chunk `last_seq`. Returns samples stored.

    Live (a streamed batch, or a reparse): one block for the batch, merged into chunks at the close.
    Not live (an import, parsed whole): a chunk per series, final at once."""
    stored = _store(session, stream, parsed.buf, live=live)
    stream.parsed_seq = last_seq
    stream.samples += stored
    stream.parser_state = {"parser": parsed.parser.state(), "warnings": parsed.warnings[:50], "last_wall": last_wall}
    return stored


class PointBuffer:
    """Samples parsed from a batch, per series key as ([microseconds], [values]), and the series they need.

    Keys are cached per (metric, labels) because a pidstat record yields a dozen metrics for the same
    process, line after line.
    """

    def __init__(self, source: str, units: dict[str, str]) -> None:
        self.source = source
        self.units = units
        self.points: dict[str, tuple[list[int], list[float]]] = {}
        self.wanted: dict[str, tuple[str, dict[str, Any], str]] = {}
        self._keys: dict[tuple[str, str], str] = {}
        self._groups: dict[tuple[tuple[Any, ...], tuple[str, ...]], tuple[list[int], list[dict[str, Any]]]] = {}
        # What _store wrote: (series id, times, values) each, in time order.
        self.stored: list[tuple[int, list[int], list[float]]] = []

    def add(self, records: list[dict[str, Any]], t: int) -> None:
        if self.source in ("vmstat", "pidstat"):
            self._add_flat(records, t)
            return
        for record in records:
            for metric, labels, unit, value in records_to_points(self.source, record, self.units):
                label_text = repr(labels) if labels else ""
                key = self._keys.get((metric, label_text))
                if key is None:
                    key = self._keys[(metric, label_text)] = series_key(metric, labels)
                    self.wanted.setdefault(key, (metric, labels, unit))
                    self.points.setdefault(key, ([], []))
                times, values = self.points[key]
                times.append(t)
                values.append(value)

    def _add_flat(self, records: list[dict[str, Any]], t: int) -> None:
        """vmstat and pidstat: every number of a record is a sample of (metric, the record's labels).

        Records are only grouped here (by labels and field names); flush() turns each group's fields
        into columns at once, with C loops: an import of 2 million samples would otherwise spend more
        time here than parsing."""
        groups = self._groups
        pidstat = self.source == "pidstat"
        for record in records:
            if pidstat:
                labels_key: tuple[Any, ...] = (record.get("command", "?"), record.get("pid"), record.get("tid"))
            elif record.get("since_boot"):
                continue  # averages since boot, not a sample of the run
            else:
                labels_key = ()
            shape = (labels_key, tuple(record))
            group = groups.get(shape)
            if group is None:
                group = groups[shape] = ([], [])
            group[0].append(t)
            group[1].append(record)

    def flush(self) -> None:
        """Columns of the grouped records, appended to their series (what records_to_points would give)."""
        for (labels_key, all_fields), (times, rows) in self._groups.items():
            fields = [f for f in all_fields if f not in NOT_METRICS]
            if not fields:
                continue
            # One C call per record for the metric fields only, then a transpose of compact tuples:
            # 40% cheaper than transposing the records' whole value views.
            pick = itemgetter(*fields)
            picked = map(pick, rows) if len(fields) > 1 else ((v,) for v in map(pick, rows))
            for field, column in zip(fields, zip(*picked), strict=True):
                kinds = set(map(type, column))
                if kinds == {int}:
                    # Kept as integers: the codec stores them without a round trip through doubles.
                    values = list(column)
                    at = times
                elif kinds <= {int, float} and all(map(math.isfinite, column)):
                    values = list(map(float, column))
                    at = times
                else:  # some None, text, bool, inf or nan: only the finite numbers are samples
                    keep = [(ti, float(v)) for ti, v in zip(times, column, strict=True)
                            if type(v) in (int, float) and math.isfinite(v)]
                    if not keep:
                        continue
                    at, values = [k[0] for k in keep], [k[1] for k in keep]
                pair = self._series(field, labels_key)
                pair[0].extend(at)
                pair[1].extend(values)
        self._groups.clear()

    def _series(self, metric: str, labels_key: tuple[Any, ...]) -> tuple[list[int], list[float]]:
        key, labels = _flat_key(self.source, metric, labels_key)
        if key not in self.points:
            self.wanted[key] = (metric, labels, self.units.get(metric, ""))
            self.points[key] = ([], [])
        return self.points[key]


@functools.lru_cache(maxsize=65536)
def _flat_key(source: str, metric: str, labels_key: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    """(series key, labels) of a vmstat or pidstat metric: the same few hundred per stream, batch after
    batch, so they are made once. The labels dict is shared: callers must not change it."""
    labels: dict[str, Any] = {}
    if source == "pidstat":
        labels = {"command": labels_key[0], "pid": labels_key[1]}
        if labels_key[2] is not None:
            labels["tid"] = labels_key[2]
    return series_key(metric, labels), labels


def _store(session: Session, stream: Stream, buf: PointBuffer, *, live: bool) -> int:
    """The batch's samples as one block (live) or a chunk per series, creating missing series first.
    Returns samples stored."""
    buf.flush()
    cache = SeriesCache(session, stream)
    cache.ensure(buf.wanted)
    series: list[tuple[int, list[int], list[float]]] = []
    counts: dict[int, int] = {}
    # The series of one record shape share their times (a vmstat import: 17 columns, 120,000 times):
    # a list equal to the previous one (a C compare) needs no second order check or time encoding.
    last: tuple[list[int], bool] | None = None
    for key, (times, values) in buf.points.items():
        if last is not None and (times is last[0] or times == last[0]):
            increasing = last[1]
        else:
            increasing = codec.is_increasing(times)
            last = (times, increasing)
        if not increasing:
            # Two values at one instant (lines stamped alike) or a clock step back: time order, the
            # last value of an instant kept, as a re-sent sample overwrites.
            times, values = codec.merge([(times, values)])
        sid = cache.ids[key]
        series.append((sid, times, values))
        counts[sid] = len(values)
    if live:
        # Numbered by the stream's samples so far: unique, and in arrival order.
        series_service.write_block(session, run_id=stream.run_id, stream_id=stream.id, block=stream.samples,
                                   series=series)
    else:
        rows = []
        encoded: tuple[list[int], tuple[int, int, bytes | None]] | None = None
        for sid, t, v in series:
            if encoded is None or not (t is encoded[0] or t == encoded[0]):
                encoded = (t, codec.encode_times(t))
            rows.append(series_service.chunk_row(stream.run_id, sid, cache.points[sid], t, v,
                                                 encoded_times=encoded[1]))
        series_service.write_chunks(session, rows)
    buf.stored = series
    if counts:
        # One statement for every series of the batch (an executemany pays a round trip per series). The
        # stream is locked by the caller, and these series are its own: no two requests update them at once.
        session.execute(
            text("UPDATE series SET points = series.points + u.n"
                 " FROM unnest(CAST(:ids AS bigint[]), CAST(:ns AS bigint[])) AS u(id, n) WHERE series.id = u.id"),
            # Array literals as text: psycopg inspects every element of a list parameter to pick its type.
            {"ids": "{" + ",".join(map(str, counts)) + "}", "ns": "{" + ",".join(map(str, counts.values())) + "}"},
        )
    return sum(counts.values())


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
    stored = _store(session, stream, buf, live=True)
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


def finish_stream(session: Session, stream: Stream, run: Run,
                  known: list[tuple[int, list[int], list[float]]] | None = None) -> None:
    """Once every chunk up to the closing one is here: one-shot summaries and steady-state stats.

    `known`: every sample of the stream, as the caller just stored it (an import), so the statistics
    need not read it back."""
    session.execute(delete(Summary).where(Summary.stream_id == stream.id))
    if flush_parser(session, stream):
        known = None  # the parser's tail added samples the caller does not have
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
    compact_stream(session, stream)
    refresh_series_stats(session, stream, run, known)


def compact_stream(session: Session, stream: Stream) -> None:
    """A closed stream's series become one chunk each: its blocks (a row per batch, raw doubles) and
    any chunks merged into a few bytes per sample."""
    ids = list(session.scalars(select(Series.id).where(Series.stream_id == stream.id)))
    series_service.compact(session, run_id=stream.run_id, stream_id=stream.id, series_ids=ids)


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
        select(Series.id, Series.labels, Series.metric).where(Series.stream_id == stream.id)
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


def steady_stats(values: list[float]) -> dict[str, Any] | None:
    """Statistics of a time-ordered series without its first and last TRIM_FRACTION (5+ samples)."""
    n = len(values)
    if not n:
        return None
    if n >= 5:
        cut = max(1, math.floor(n * TRIM_FRACTION))
        values = values[cut:n - cut]
        n = len(values)
    mean = math.fsum(values) / n
    dev = list(map(sub, values, repeat(mean)))
    stdev = math.sqrt(math.fsum(map(mul, dev, dev)) / (n - 1)) if n > 1 else None
    ordered = sorted(values)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {"mean": mean, "min": ordered[0], "max": ordered[-1], "stdev": stdev, "n": n, "median": median,
            "trim_fraction": TRIM_FRACTION}


def refresh_series_stats(session: Session, stream: Stream, run: Run,
                         known: list[tuple[int, list[int], list[float]]] | None = None) -> None:
    series = list(session.scalars(select(Series).where(Series.stream_id == stream.id)))
    points = _points_of(session, run.id, [s.id for s in series], known)
    for s in series:
        stats = steady_stats(points.get((run.id, s.id), ([], []))[1])
        if stats is not None:
            s.stats = stats


def reparse_stream(session: Session, stream: Stream, run: Run) -> None:
    ids = select(Series.id).where(Series.stream_id == stream.id)
    session.execute(delete(SeriesChunk).where(SeriesChunk.run_id == stream.run_id, SeriesChunk.series_id.in_(ids)))
    session.execute(delete(SeriesBlock).where(SeriesBlock.run_id == stream.run_id, SeriesBlock.stream_id == stream.id))
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
