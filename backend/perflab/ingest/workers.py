"""Parse workers: parsing off the request path (on by default; PERFLAB_PARSE_WORKERS=false turns them
off, docs/scaling.md).

With workers on, an ingest request only stores raw chunks and answers after its commit. A worker (the
parse process of every `perflab serve` process, ingest/parse_process.py; `perflab worker` on a dedicated
host; a thread of an in-process app such as the tests' TestClient) claims one stream
that has its next chunk stored with `SELECT ... FOR UPDATE SKIP LOCKED`, parses its chunks in seq
order from `stream.parsed_seq`, writes the samples, the new cursor and the parser state, and commits,
all in one transaction. So one worker owns a stream at a time (others skip it), and a worker that dies
mid-stream rolls back to the old cursor: the next one parses the same chunks, no sample lost or twice.

Workers are woken by `NOTIFY perflab_parse` (sent by the ingest transaction, delivered at its commit)
and poll every POLL_S anyway, for a notice missed while their listening connection reconnected.

A run is judged (complete/partial, alerts) by whoever finishes its last stream: the worker whose parse
reaches a closing chunk, or the finish request if every stream was finished before it. Both lock the
run row first, so the later of the two sees the other's commit and no run is left undecided.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, exists, func, or_, select, text
from sqlalchemy.orm import Session

from perflab.db import unit_of_work
from perflab.ingest import pipeline
from perflab.runs.models import RawChunk, Run, Stream

log = logging.getLogger(__name__)

CHANNEL = "perflab_parse"
# The advisory lock class of a stream's parse ownership (the key is the stream id); cluster/leader.py's
# sweep lock is a single bigint key, so the two never meet.
CLAIM_LOCK = 0x7066
INT4_KEYS = 2147483647
POLL_S = 1.0
APPLICATION_NAME = "perflab-parse-worker"


def enabled() -> bool:
    from perflab.config import get_settings

    return get_settings().parse_workers


def announce(session: Session) -> None:
    """Wake the workers once this transaction commits (PostgreSQL holds the notice until then)."""
    session.execute(text("SELECT pg_notify(:ch, '')"), {"ch": CHANNEL})


def wake() -> None:
    """Wake the listening workers now (this process's, at shutdown: its stop is seen at once instead of
    after a poll of up to POLL_S; any other worker woken makes one pass and finds nothing)."""
    try:
        with unit_of_work() as session:
            announce(session)
    except Exception:  # the database gone: the worker stops at its next poll anyway
        log.debug("parse worker: could not send the wake-up notice", exc_info=True)


def _pending() -> Any:
    """Streams with work: their next chunk is stored (a gap waits for its chunk, it is not work), or every
    chunk up to the closing one is parsed and the stream is not finished yet."""
    nxt = exists().where(RawChunk.run_id == Stream.run_id, RawChunk.stream_id == Stream.id,
                         RawChunk.seq == Stream.parsed_seq + 1)
    unfinished = (Stream.closed_seq.is_not(None) & Stream.closed_at.is_(None)
                  & (Stream.parsed_seq >= Stream.closed_seq))
    return or_((Stream.parsed_seq < Stream.max_seq) & nxt, unfinished)


# Built once: constructing a statement and its cache key per claim cost the parse process more than
# PostgreSQL's answer (one try and one read per candidate, 80 candidates a pass under 40 live agents).
_TRY_OWN = select(func.pg_try_advisory_xact_lock(CLAIM_LOCK, bindparam("key")))
# Read after the lock: what the previous owner committed (its cursor) is what this one resumes from.
_OWNED_WITH_WORK = (select(Stream).where(Stream.id == bindparam("id"), _pending())
                    .execution_options(populate_existing=True))


def advance(session: Session, stream: Stream, *, fresh: dict[int, list[Any]] | None = None,
            runs: dict[uuid.UUID, Run] | None = None) -> Run | None:
    """Parse a locked stream as far as its chunks are contiguous; finish it once its closing chunk is
    parsed. Returns its run when the stream was finished (the caller evaluates the run)."""
    pipeline.parse_pending(session, stream, fresh)
    if not (pipeline.stream_complete(stream) and stream.closed_at is None):
        return None
    runs = runs if runs is not None else {}
    # Locked (after the stream: the order every path takes) so that a finish request judging the run
    # at the same moment waits for this commit, or this waits for its: the later one sees both.
    run = runs.get(stream.run_id) or session.get(Run, stream.run_id, with_for_update=True,
                                                 populate_existing=True)
    assert run is not None
    runs[run.id] = run
    pipeline.finish_stream(session, stream, run)
    stream.closed_at = datetime.now(UTC)
    if stream.state == "open":
        stream.state = "closed"
    return run


def candidates(session: Session, *, run_id: uuid.UUID | None = None) -> list[int]:
    """The streams with work now, in id order: read once a pass, then owned one at a time (claim's
    ``among``). A claim query per stream read every pending stream again each time: with 80 live
    streams, 5 ms of the worker's CPU and 12 ms of wall time a stream."""
    q = select(Stream.id).where(_pending())
    if run_id is not None:
        q = q.where(Stream.run_id == run_id)
    return list(session.scalars(q.order_by(Stream.id)))


def claim(session: Session, *, run_id: uuid.UUID | None = None, skip: Iterable[int] = (),
          among: deque[int] | None = None) -> Stream | None:
    """Own one stream with work that no other worker owns, until this transaction ends; ``among``: the
    pass's candidates (consumed in order), else they are looked up now.

    Ownership is a transaction-scoped advisory lock on (CLAIM_LOCK, stream id) taken with
    pg_try_advisory_xact_lock, PostgreSQL's SKIP LOCKED for a key rather than a row: a row lock
    (FOR UPDATE) would also make every ingest of that stream wait for the whole parse, since a batch
    updates the stream's counters. Locks are only tried on the candidates, in id order, until one is
    free and still has work. Two int4 keys (a key space apart from one-bigint keys): ids wrap past
    2^31-1, a rare shared key only makes a worker skip a stream for one pass."""
    if among is None:
        among = deque(candidates(session, run_id=run_id))
    skipped = set(skip)
    # Each candidate is tried once: taken off the list whether this worker gets it, another owns it (it is
    # parsing it now) or it has nothing left (another parsed it since the candidates were read).
    while among:
        stream_id = among.popleft()
        if stream_id in skipped or not session.scalar(_TRY_OWN, {"key": stream_id % INT4_KEYS}):
            continue
        stream = session.scalars(_OWNED_WITH_WORK, {"id": stream_id}).first()
        if stream is not None:
            return stream
    return None


def own(session: Session, *, stream_id: int) -> None:
    """Own a stream as claim() does, waiting for a worker that holds it (a reparse must not interleave with
    a parse of the same stream)."""
    session.execute(select(func.pg_advisory_xact_lock(CLAIM_LOCK, stream_id % INT4_KEYS)))


def parse_one(*, run_id: uuid.UUID | None = None, failed: set[int] | None = None,
              seen: set[int] | None = None, among: deque[int] | None = None) -> bool:
    """Claim a stream, parse it, commit. False when no unlocked stream has work.

    A stream whose parse raises is rolled back, added to `failed` and skipped by later calls that pass
    the same set: one broken stream must not stop the others (it is retried at the next drain).
    A stream claimed is added to `seen`, and streams in it are skipped (one turn each per pass)."""
    from perflab.ingest import service

    failed = failed if failed is not None else set()
    held: int | None = None
    try:
        with unit_of_work() as session:
            stream = claim(session, run_id=run_id, skip=failed | (seen or set()), among=among)
            if stream is None:
                return False
            held = stream.id
            if seen is not None:
                seen.add(held)
            run = advance(session, stream)
            if run is not None:
                service.evaluate(session, run=run)
            session.flush()
    except Exception:
        if held is None:
            raise
        log.exception("parse worker: parsing stream %d failed; skipping it until the next pass", held)
        failed.add(held)
    return True


def parse_pass(*, run_id: uuid.UUID | None = None, failed: set[int] | None = None, limit: int = 100_000,
               stop: threading.Event | None = None) -> int:
    """One turn for every stream with work: each is claimed at most once, in id order. Returns the streams
    claimed. Without turns the lowest ids, which get a batch every second, would be claimed again and
    again while the others waited (40 live agents: the oldest unparsed batch 28 s old). A `stop` set ends
    the pass after the stream in hand (a pass over 80 busy streams takes seconds; a shutdown should not)."""
    failed = failed if failed is not None else set()
    seen: set[int] = set()
    with unit_of_work() as session:
        among = deque(candidates(session, run_id=run_id))
    done = 0
    while (done < limit and not (stop is not None and stop.is_set())
           and parse_one(run_id=run_id, failed=failed, seen=seen, among=among)):
        done += 1
    return done


def drain(*, run_id: uuid.UUID | None = None, limit: int = 100_000) -> int:
    """Parse until no unlocked stream has work. Returns the streams claimed."""
    done = 0
    failed: set[int] = set()
    while done < limit and (claimed := parse_pass(run_id=run_id, failed=failed, limit=limit - done)):
        done += claimed
    return done


def has_work(session: Session, *, run_id: uuid.UUID) -> bool:
    """Whether a worker has something to do on this run (a stream waiting for a missing chunk has not)."""
    return session.scalar(select(Stream.id).where(Stream.run_id == run_id, _pending()).limit(1)) is not None


def wait_parsed(run_id: uuid.UUID, *, timeout: float) -> bool:
    """Wait until the workers have parsed (and finished) everything received for a run, at most `timeout`
    seconds. True when parsed. Woken by the run's `perflab_run` notices (a worker's commit changes its
    streams), polling every 0.5 s as well."""
    from perflab.cluster import live, pg

    deadline = time.monotonic() + timeout
    conn = None
    try:
        try:
            conn = pg.connect()
            conn.execute(f"LISTEN {live.CHANNEL}")  # before the first look: no commit slips between
        except Exception:
            log.debug("wait_parsed: cannot listen; polling", exc_info=True)
            conn = None
        while True:
            with unit_of_work() as session:
                if not has_work(session, run_id=run_id):
                    return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if conn is None:
                time.sleep(min(0.05, left))
            else:
                for _ in conn.notifies(timeout=min(0.5, left), stop_after=1):
                    pass
    finally:
        if conn is not None:
            conn.close()


def run_lag(session: Session, *, run_id: uuid.UUID) -> dict[str, Any]:
    """How far parsing trails what was received: chunks stored but not parsed yet, and the age of the
    oldest of them (what the run page shows while workers catch up)."""
    chunks = session.scalar(select(func.coalesce(func.sum(Stream.max_seq - Stream.parsed_seq), 0))
                            .where(Stream.run_id == run_id, Stream.parsed_seq < Stream.max_seq)) or 0
    oldest = None
    if chunks:
        oldest = session.scalar(
            select(func.min(RawChunk.received_at)).join(Stream, (Stream.id == RawChunk.stream_id)
                                                        & (Stream.run_id == RawChunk.run_id))
            .where(RawChunk.run_id == run_id, RawChunk.seq > Stream.parsed_seq))
    seconds = max(0.0, (datetime.now(UTC) - oldest).total_seconds()) if oldest is not None else 0.0
    return {"chunks": int(chunks), "seconds": round(seconds, 3)}


def work_forever(stop: threading.Event, *, poll_s: float = POLL_S) -> None:
    """A worker's loop: passes while they find work, then sleep until a notice or `poll_s`. Ends when `stop`
    is set."""
    from perflab.cluster import pg

    conn = None
    failed: set[int] = set()
    while not stop.is_set():
        try:
            if conn is None:
                conn = pg.connect()
                conn.execute(f"LISTEN {CHANNEL}")
        except Exception:
            log.warning("parse worker: cannot listen for %s; polling every %.1f s", CHANNEL, poll_s, exc_info=True)
            conn = None
        claimed = 0
        try:
            claimed = parse_pass(failed=failed, stop=stop)
        except Exception:
            log.warning("parse worker: a parse failed; trying again in %.1f s", poll_s, exc_info=True)
        if stop.is_set():
            break
        if claimed:
            continue  # batches keep coming: the next pass at once (a stop is seen between passes)
        failed.clear()  # idle: a stream that failed gets another try at the next notice
        if conn is None:
            stop.wait(poll_s)
            continue
        try:
            # Several notices (one per ingest commit) make one wake-up: the drain takes them all.
            for _ in conn.notifies(timeout=poll_s, stop_after=1):
                pass
        except Exception:
            log.warning("parse worker: listening connection lost; reconnecting", exc_info=True)
            try:
                conn.close()
            except Exception:
                log.debug("closing the listening connection failed", exc_info=True)
            conn = None
    if conn is not None:
        conn.close()


def start_thread(stop: threading.Event) -> threading.Thread:
    thread = threading.Thread(target=work_forever, args=(stop,), name="perflab-parse", daemon=True)
    thread.start()
    return thread
