"""Storing a stream: raw chunks (encoded lines), and parsing them strictly in seq order into series
blocks or chunks, resuming the line parser from the state kept on the stream.

A retried or reordered batch is never parsed twice: `stream.parsed_seq` is the one cursor, written in
the same transaction as the samples.
"""

from __future__ import annotations

import gzip
import json
import threading
import uuid
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, cast

from pydantic import TypeAdapter
from sqlalchemy import Table, select, text
from sqlalchemy.orm import Session

from perflab.ingest.buffer import STREAMING, Parsed, PointBuffer
from perflab.runs.models import RawChunk, Series, Stream
from perflab.series import codec
from perflab.series import service as series_service

_LINES = TypeAdapter(list[tuple[float, float, str]])


def _lines_json(lines: Iterable[tuple[float, float, str]]) -> bytes:
    # pydantic-core writes the JSON 6x faster than the json module (a 30 s pidstat batch: 0.4 vs 2.6 ms,
    # the serving process's largest cost per batch after FastAPI itself); json.loads reads either. Text it
    # refuses (a lone surrogate) goes the json module's way, escaped.
    rows = list(lines)
    try:
        return _LINES.dump_json(rows)
    except ValueError:
        return json.dumps(rows, separators=(",", ":")).encode()


def encode_lines(lines: Iterable[tuple[float, float, str]]) -> bytes:
    # Level 1: raw text is the bulk of what a run stores, but gzip -3 costs twice the time for ~10% less.
    return gzip.compress(_lines_json(lines), compresslevel=1)


class LinesWriter:
    """``encode_lines`` a block of lines at a time: the same gzip of the same JSON array, compressed as it is
    written, so an import's raw chunk never holds its lines whole (a 64 MB log is 640,000 of them)."""

    def __init__(self) -> None:
        self._zip = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip -1, as encode_lines
        self._out = [self._zip.compress(b"[")]
        self._first = True

    def add(self, lines: Iterable[tuple[float, float, str]]) -> None:
        body = _lines_json(lines)
        if len(body) <= 2:
            return  # no lines: "[]"
        if not self._first:
            self._out.append(self._zip.compress(b","))
        self._first = False
        self._out.append(self._zip.compress(memoryview(body)[1:-1]))  # the entries, without the brackets

    def finish(self) -> bytes:
        self._out.append(self._zip.compress(b"]"))
        self._out.append(self._zip.flush())
        return b"".join(self._out)


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


class SeriesCache:
    """Series ids of one stream. New series are created in one statement per batch, not one per series."""

    def __init__(self, session: Session, stream: Stream) -> None:
        self.session = session
        self.stream = stream
        self.ids: dict[str, int] = {}
        # Samples each series holds so far: the next chunk of a series is numbered by its first sample.
        self.points: dict[int, int] = {}
        # By run and stream: the unique index (run_id, stream_id, key) leads with run_id, so a stream id
        # alone scanned the whole index, every batch, at a cost growing with every series ever stored.
        for key, sid, points in session.execute(
            text("SELECT key, id, points FROM series WHERE run_id = :r AND stream_id = :st"),
            {"r": stream.run_id, "st": stream.id},
        ):
            self.ids[key] = sid
            self.points[sid] = points

    def ensure(self, wanted: dict[str, tuple[str, dict[str, Any], str]]) -> None:
        """wanted: key -> (metric, labels, unit) for every key seen in this batch."""
        missing = [k for k in wanted if k not in self.ids]
        if not missing:
            return
        st = self.stream
        # One statement for the batch's new series, ids in key order as they came: an executemany sent
        # one INSERT per series (a pidstat stream's first batch: ~300) and a SELECT after for the ids.
        rows = json.dumps([[wanted[k][0], k, wanted[k][1], wanted[k][2]] for k in missing], separators=(",", ":"))
        created = self.session.execute(CREATE_SERIES, {"run": st.run_id, "st": st.id, "role": st.role,
                                                       "source": st.source, "rows": rows})
        for key, sid, points in created:
            self.ids[key] = sid
            self.points[sid] = points
        rest = [k for k in missing if k not in self.ids]
        if rest:
            # Created meanwhile by another transaction (ON CONFLICT skipped them): read their ids.
            for key, sid, points in self.session.execute(
                select(Series.key, Series.id, Series.points)
                .where(Series.run_id == st.run_id, Series.stream_id == st.id, Series.key.in_(rest))
            ):
                self.ids[key] = sid
                self.points[sid] = points


# The rows as one JSON array of [metric, key, labels, unit]: text[] parameters cost psycopg a regex
# escape per element (a fifth of a pidstat stream's first parse), a JSON document one C-encoded string.
CREATE_SERIES = text(
    "INSERT INTO series (run_id, stream_id, role, source, metric, key, labels, unit, points, stats)"
    " SELECT :run, :st, :role, :source, e.r->>0, e.r->>1, e.r->2, e.r->>3, 0, '{}'"
    " FROM jsonb_array_elements(CAST(:rows AS jsonb)) WITH ORDINALITY AS e(r, n) ORDER BY e.n"
    " ON CONFLICT (run_id, stream_id, key) DO NOTHING RETURNING key, id, points")


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


def store_parsed(session: Session, stream: Stream, parsed: Parsed, *, last_seq: int, last_wall: float | None,
                 live: bool = True) -> int:
    """Store what `parsed` holds as parsed up to raw chunk `last_seq`. Returns samples stored.

    Live (a streamed batch, or a reparse): one block for the batch, merged into chunks at the close.
    Not live (an import, parsed whole): a chunk per series, final at once."""
    stored = store_points(session, stream, parsed.buf, live=live)
    stream.parsed_seq = last_seq
    stream.samples += stored
    stream.parser_state = {**kept_state(stream), "parser": parsed.parser.state(), "warnings": parsed.warnings[:50],
                           "last_wall": last_wall}
    return stored


# parser_state's keys that are not the line parser's: the live samples per series (series/service.py) and
# the generation of the stream's series ids (_live_series_ids).
LIVE_POINTS = series_service.LIVE_POINTS
SERIES_EPOCH = "series_epoch"


def kept_state(stream: Stream) -> dict[str, Any]:
    """What a new parser_state carries over from the stream's current one."""
    state = stream.parser_state or {}
    return {k: state[k] for k in (LIVE_POINTS, SERIES_EPOCH) if k in state}


# (stream id, series epoch) -> {series key: id}, for live batches: a pidstat stream's ~300 series were read
# back for every batch (1.4 ms of wall time and 0.9 ms of the worker's CPU). An epoch names one set of
# series rows of a stream: a new one is written to the stream, in the same transaction, whenever series
# are created, and a reparse (which deletes them) empties the stream's parser_state. So a transaction that
# rolls back leaves the stream on the epoch whose ids were committed, and ids from another process or
# an older parse are never used.
_SERIES_IDS: OrderedDict[tuple[int, str], dict[str, int]] = OrderedDict()
_SERIES_IDS_MAX = 4096
_SERIES_IDS_LOCK = threading.Lock()


def _live_series_ids(session: Session, stream: Stream, wanted: dict[str, tuple[str, dict[str, Any], str]]) -> dict[str, int]:
    epoch = (stream.parser_state or {}).get(SERIES_EPOCH)
    known = None
    if isinstance(epoch, str):
        with _SERIES_IDS_LOCK:
            known = _SERIES_IDS.get((stream.id, epoch))
            if known is not None:
                _SERIES_IDS.move_to_end((stream.id, epoch))
    if known is not None and all(k in known for k in wanted):
        return known
    cache = SeriesCache(session, stream)
    created = not all(k in cache.ids for k in wanted)
    cache.ensure(wanted)
    if created or not isinstance(epoch, str):
        epoch = uuid.uuid4().hex[:16]
        stream.parser_state = {**(stream.parser_state or {}), SERIES_EPOCH: epoch}
    with _SERIES_IDS_LOCK:
        _SERIES_IDS[(stream.id, epoch)] = dict(cache.ids)
        while len(_SERIES_IDS) > _SERIES_IDS_MAX:
            _SERIES_IDS.popitem(last=False)
    return cache.ids


def _count_live(stream: Stream, counts: dict[int, int]) -> None:
    state = dict(stream.parser_state or {})
    points = dict(state.get(LIVE_POINTS) or {})
    for sid, n in counts.items():
        points[str(sid)] = points.get(str(sid), 0) + n
    state[LIVE_POINTS] = points
    stream.parser_state = state


def store_points(session: Session, stream: Stream, buf: PointBuffer, *, live: bool) -> int:
    """The batch's samples as one block (live) or a chunk per series, creating missing series first.
    Returns samples stored."""
    buf.flush()
    cache = None
    if live:
        ids = _live_series_ids(session, stream, buf.wanted)
    else:
        cache = SeriesCache(session, stream)
        cache.ensure(buf.wanted)
        ids = cache.ids
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
        sid = ids[key]
        series.append((sid, times, values))
        counts[sid] = len(values)
    if live:
        # Numbered by the stream's samples so far: unique, and in arrival order.
        series_service.write_block(session, run_id=stream.run_id, stream_id=stream.id, block=stream.samples,
                                   series=series)
        if counts:
            _count_live(stream, counts)
    else:
        assert cache is not None
        rows = []
        encoded: tuple[list[int], tuple[int, int, bytes | None]] | None = None
        for sid, t, v in series:
            if encoded is None or not (t is encoded[0] or t == encoded[0]):
                encoded = (t, codec.encode_times(t))
            rows.append(series_service.chunk_row(stream.run_id, sid, cache.points[sid], t, v,
                                                 encoded_times=encoded[1]))
        series_service.write_chunks(session, rows)
    buf.stored = series
    if not live:
        # The stream is locked by the caller, and these series are its own: no two requests update them at once.
        series_service.count_points(session, run_id=stream.run_id, counts=counts, add=True)
    return sum(counts.values())


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
