"""Series of a run and their samples, kept as compact chunks (perflab/series/codec.py).

Charts never receive more than they draw: chunks are decoded here and downsampled before they leave.
Everything that reads or writes samples goes through read_points / write_chunks / write_block / compact.
A live stream appends blocks (one row per batch for all its series); imports and a closed stream's
compaction write chunks (one row per series).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from perflab.errors import BadInput
from perflab.runs.models import Run, Series
from perflab.series import codec

MAX_POINTS_LIMIT = 10_000

# (times in microseconds since the epoch, values), time-ordered.
Points = tuple[list[int], list[float]]


def list_series(session: Session, *, run_id: uuid.UUID) -> list[tuple[Series, int]]:
    """The run's series, each with its samples: those in its chunks (``series.points``) and, for a stream
    still taking live batches, those in its blocks (counted per batch on the stream, ``LIVE_POINTS``)."""
    from perflab.runs.models import Stream

    live: dict[int, int] = {}
    for state in session.scalars(select(Stream.parser_state).where(
            Stream.run_id == run_id, Stream.parser_state.has_key(LIVE_POINTS))):
        for sid, n in (state.get(LIVE_POINTS) or {}).items():
            live[int(sid)] = live.get(int(sid), 0) + int(n)
    rows = session.scalars(select(Series).where(Series.run_id == run_id).order_by(Series.role, Series.key))
    return [(s, s.points + live.get(s.id, 0)) for s in rows]


# The key of a live stream's parser_state holding {series id: samples in its blocks}. A batch's samples are
# counted there, on the stream row its parse updates anyway, rather than on each series: a pidstat batch
# updated ~300 series rows, two thirds of PostgreSQL's work per parsed batch (2.8 of 4.2 ms of its CPU).
# The close's compaction moves the counts to series.points.
LIVE_POINTS = "points"


def run_origin(run: Run) -> Any:
    return run.started_at or run.created_at


def chunk_row(run_id: uuid.UUID, series_id: int, chunk: int, times_us: Sequence[int],
              values: Sequence[float], *, encoded_times: tuple[int, int, bytes | None] | None = None) -> dict[str, Any]:
    """encoded_times: codec.encode_times(times_us), when the caller has it already."""
    t0, step, times = encoded_times if encoded_times is not None else codec.encode_times(times_us)
    return {"run_id": run_id, "series_id": series_id, "chunk": chunk, "n": len(values), "t0": codec.from_us(t0),
            "t1": codec.from_us(times_us[-1]), "step_us": step, "times": times,
            "vals": codec.encode_values(values)}


CHUNK_COLUMNS = ("run_id", "series_id", "chunk", "n", "t0", "t1", "step_us", "times", "vals")


def write_chunks(session: Session, rows: list[dict[str, Any]]) -> None:
    """Rows made by chunk_row, by COPY: a pidstat batch holds a chunk for each of hundreds of series, and
    COPY stores them in one stream where an executemany still pays per row."""
    if not rows:
        return
    raw = session.connection().connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur, cur.copy(f"COPY series_chunk ({', '.join(CHUNK_COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[c] for c in CHUNK_COLUMNS])


def write_block(session: Session, *, run_id: uuid.UUID, stream_id: int, block: int,
                series: list[tuple[int, list[int], list[float]]]) -> None:
    """One live batch of a stream: (series id, times in us, values) for each series it added to."""
    n = sum(len(v) for _, _, v in series)
    if not n:
        return
    session.execute(
        text("INSERT INTO series_block (run_id, stream_id, block, n, data) VALUES (:r, :st, :b, :n, :d)"),
        {"r": run_id, "st": stream_id, "b": block, "n": n, "d": codec.encode_block(series)},
    )


def read_points(
    session: Session, keys: Iterable[tuple[uuid.UUID, int]], *, t_from: datetime | None = None,
    t_to: datetime | None = None,
) -> dict[tuple[uuid.UUID, int], Points]:
    """Every sample of the given (run_id, series_id) series, optionally only chunks that overlap a window
    (samples outside it may still come back: callers filter exactly). A live stream's blocks are read
    whole, whatever the window.

    Chunks and blocks come from one statement, so one snapshot: a stream's compaction moves samples
    from its blocks into chunks in one transaction, and two statements under READ COMMITTED could see
    the chunks before it and the blocks after it, i.e. neither.
    """
    keys = list(keys)
    if not keys:
        return {}
    wanted = set(keys)
    window = ""
    params: dict[str, Any] = {"runs": [k[0] for k in keys], "sids": [k[1] for k in keys]}
    if t_from is not None:
        window += " AND c.t1 >= :t_from"
        params["t_from"] = t_from
    if t_to is not None:
        window += " AND c.t0 <= :t_to"
        params["t_to"] = t_to
    # src 0: a chunk of one series (ordered by chunk); src 1: a live block of a stream holding some of
    # these series (ordered by block). Blocks come after every chunk: a chunk is an import's whole
    # series or what a close merged earlier.
    rows = session.execute(
        text(
            "WITH k AS (SELECT * FROM unnest(CAST(:runs AS uuid[]), CAST(:sids AS bigint[])) AS k(run_id, series_id))"
            " SELECT 0 AS src, c.run_id, c.series_id AS id, c.chunk AS ord, c.t0, c.step_us, c.n, c.times, c.vals,"
            "   NULL AS data"
            " FROM k JOIN series_chunk c ON c.run_id = k.run_id AND c.series_id = k.series_id"
            f" WHERE true{window}"
            " UNION ALL"
            " SELECT 1, b.run_id, b.stream_id, b.block, NULL, NULL, NULL, NULL, NULL, b.data FROM series_block b"
            " WHERE (b.run_id, b.stream_id) IN ("
            "   SELECT s.run_id, s.stream_id FROM series s JOIN k ON s.id = k.series_id AND s.run_id = k.run_id)"
            " ORDER BY src, run_id, id, ord"
        ),
        params,
    ).all()
    parts: dict[tuple[uuid.UUID, int], list[tuple[list[int], list[float]]]] = {}
    # Series held in one regular chunk (t0 + i * step): already in time order, nothing to merge.
    regular: set[tuple[uuid.UUID, int]] = set()
    for src, run_id, sid, _, t0, step, n, times, vals, data in rows:
        if src == 1:
            for block_sid, points in codec.decode_block(data).items():
                if (run_id, block_sid) in wanted:
                    regular.discard((run_id, block_sid))
                    parts.setdefault((run_id, block_sid), []).append(points)
            continue
        key = (run_id, sid)
        if key in parts:
            regular.discard(key)
        elif times is None and step > 0:
            regular.add(key)
        parts.setdefault(key, []).append(
            (codec.decode_times(codec.to_us(t0), step, n, times), codec.decode_values(vals)))
    return {k: p[0] if k in regular else codec.merge(p) for k, p in parts.items()}


def compact(session: Session, *, run_id: uuid.UUID, stream_id: int, series_ids: Sequence[int],
            points: dict[tuple[uuid.UUID, int], Points] | None = None) -> int:
    """Merge the stream's blocks and each series' chunks into one chunk per series (chunk 0), once the
    stream is closed. Returns series rewritten. `points`: every sample of these series, when the caller
    has read them already (read_points' answer)."""
    if not series_ids:
        return 0
    has_blocks = session.execute(
        text("SELECT 1 FROM series_block WHERE run_id = :run AND stream_id = :st LIMIT 1"),
        {"run": run_id, "st": stream_id},
    ).first() is not None
    if has_blocks:
        many: Sequence[int] = list(series_ids)
    else:
        many = session.execute(
            text("SELECT series_id FROM series_chunk WHERE run_id = :run AND series_id = ANY(:ids)"
                 " GROUP BY series_id HAVING count(*) > 1"),
            {"run": run_id, "ids": list(series_ids)},
        ).scalars().all()
    if not many:
        return 0
    if points is None:
        points = read_points(session, [(run_id, sid) for sid in many])
    else:
        points = {(run_id, sid): points[(run_id, sid)] for sid in many if (run_id, sid) in points}
    session.execute(text("DELETE FROM series_chunk WHERE run_id = :run AND series_id = ANY(:ids)"),
                    {"run": run_id, "ids": list(many)})
    session.execute(text("DELETE FROM series_block WHERE run_id = :run AND stream_id = :st"),
                    {"run": run_id, "st": stream_id})
    write_chunks(session, [chunk_row(run_id, sid, 0, t, v) for (_, sid), (t, v) in points.items() if t])
    # What each series holds now, merged (a sample sent twice counts once): live blocks never counted
    # themselves on the series rows (LIVE_POINTS).
    count_points(session, run_id=run_id, counts={sid: len(t) for (_, sid), (t, _) in points.items()}, add=False)
    return sum(1 for t, _ in points.values() if t)


def count_points(session: Session, *, run_id: uuid.UUID, counts: Mapping[int, int], add: bool) -> None:
    """Set each series' sample count (``series.points``), or with ``add`` raise it, in one statement for
    all of them (an executemany pays a round trip per series)."""
    if not counts:
        return
    value = "series.points + u.n" if add else "u.n"
    session.execute(
        text(f"UPDATE series SET points = {value}"
             " FROM unnest(CAST(:ids AS bigint[]), CAST(:ns AS bigint[])) AS u(id, n)"
             " WHERE series.run_id = :run AND series.id = u.id"),
        # Array literals as text: psycopg inspects every element of a list parameter to pick its type.
        {"run": run_id, "ids": "{" + ",".join(map(str, counts)) + "}",
         "ns": "{" + ",".join(map(str, counts.values())) + "}"})


def downsample(t: Sequence[float], v: Sequence[float], max_points: int) -> tuple[list[float], list[float]]:
    """Equal-width time buckets over [t[0], t[-1]], each the mean of its times and of its values."""
    if len(t) <= max_points:
        return list(t), list(v)
    t0 = t[0]
    width = max(t[-1] - t0, 1e-9)
    out_t: list[float] = []
    out_v: list[float] = []
    bucket = -1
    st = sv = 0.0
    k = 0
    for ti, vi in zip(t, v):
        b = math.floor((ti - t0) * (max_points - 1) / width)
        if b != bucket:
            if k:
                out_t.append(st / k)
                out_v.append(sv / k)
            bucket, st, sv, k = b, 0.0, 0.0, 0
        st += ti
        sv += vi
        k += 1
    if k:
        out_t.append(st / k)
        out_v.append(sv / k)
    return out_t, out_v


def series_data(
    session: Session, *, run: Run, series_ids: list[int], max_points: int = 2000
) -> list[dict[str, Any]]:
    if not 10 <= max_points <= MAX_POINTS_LIMIT:
        raise BadInput(f"max_points must be 10..{MAX_POINTS_LIMIT}")
    if not series_ids:
        return []
    if len(series_ids) > 200:
        raise BadInput("ask for at most 200 series at once")
    wanted = list(session.scalars(select(Series).where(Series.run_id == run.id, Series.id.in_(series_ids))))
    if not wanted:
        return []
    origin_us = codec.to_us(run_origin(run))
    points = read_points(session, [(run.id, s.id) for s in wanted])
    out = []
    for s in wanted:
        times, values = points.get((run.id, s.id), ([], []))
        t = [(x - origin_us) / 1e6 for x in times]
        down = len(t) > max_points
        t, values = downsample(t, values, max_points)
        out.append({"id": s.id, "key": s.key, "role": s.role, "source": s.source, "unit": s.unit,
                    "t": [round(x, 3) for x in t], "v": values, "downsampled": down})
    return out


def per_second_lines(
    session: Session, *, series: Sequence[tuple[uuid.UUID, int, int]], origins: dict[uuid.UUID, datetime],
    max_points: int, t_start_s: float | None = None, t_end_s: float | None = None,
) -> list[tuple[uuid.UUID, int, list[float], list[float], bool]]:
    """Overlay lines: series given as (run_id, stream_id, series_id), summed per whole second from their
    run's origin within a stream (a command's pids become one line per host), within [t_start_s, t_end_s],
    downsampled to max_points. Returns (run_id, stream_id, t, v, downsampled) ordered by run and stream."""
    if not series:
        return []
    lo = min(origins.values())
    hi = max(origins.values())
    t_from = lo + timedelta(seconds=t_start_s) if t_start_s is not None else None
    t_to = hi + timedelta(seconds=t_end_s) if t_end_s is not None else None
    points = read_points(session, [(r, sid) for r, _, sid in series], t_from=t_from, t_to=t_to)
    sums: dict[tuple[uuid.UUID, int], dict[int, float]] = {}
    start_us = round(t_start_s * 1e6) if t_start_s is not None else None
    end_us = round(t_end_s * 1e6) if t_end_s is not None else None
    for run_id, stream_id, sid in series:
        times, values = points.get((run_id, sid), ([], []))
        if not times:
            continue
        origin = codec.to_us(origins[run_id])
        per_sec = sums.setdefault((run_id, stream_id), {})
        for t, v in zip(times, values, strict=True):
            rel = t - origin
            if (start_us is not None and rel < start_us) or (end_us is not None and rel > end_us):
                continue
            sec = rel // 1_000_000
            per_sec[sec] = per_sec.get(sec, 0.0) + v
    out: list[tuple[uuid.UUID, int, list[float], list[float], bool]] = []
    for (run_id, stream_id), per_sec in sorted(sums.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        if not per_sec:
            continue
        secs = sorted(per_sec)
        line_t, line_v = downsample([float(s) for s in secs], [per_sec[s] for s in secs], max_points)
        out.append((run_id, stream_id, line_t, line_v, len(secs) > max_points))
    return out
