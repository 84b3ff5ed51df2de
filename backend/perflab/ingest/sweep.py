"""Runs whose `perflab-agent run` died: after a silence they end `partial`, not `running` forever."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from perflab.db import unit_of_work
from perflab.experiments.models import Experiment
from perflab.runs.models import RawChunk, Run, Stream

log = logging.getLogger(__name__)

SILENCE_REASON = ("no line from the load command for {seconds:.0f} s: the run's `perflab-agent run` stopped "
                  "without finishing it")
# The stream of the `perflab-agent run` process itself (agents/perflab_agent/runcmd.py). Daemons'
# collectors keep streaming for a run whose `run` process died, so only this stream says it is alive;
# the agent sends an empty batch on it every minute while the load command prints nothing.
LOAD_STREAM = "load"


def _load_chunks(run_id: Any) -> list[Any]:
    """Conditions for the chunks of a run's load stream (run_id: a value or the correlated column)."""
    load = select(Stream.id).where(Stream.run_id == RawChunk.run_id, Stream.name == LOAD_STREAM)
    return [RawChunk.run_id == run_id, RawChunk.stream_id.in_(load)]


def silent_runs(session: Session, *, silence: timedelta) -> list[uuid.UUID]:
    """Agent runs still pending/running whose load stream received nothing within `silence`."""
    cutoff = datetime.now(UTC) - silence
    recent_chunk = exists().where(*_load_chunks(Run.id), RawChunk.received_at > cutoff)
    return list(session.scalars(
        select(Run.id).where(Run.source == "agent", Run.status.in_(("pending", "running")), Run.ended_at.is_(None),
                             func.coalesce(Run.started_at, Run.created_at) < cutoff,
                             Run.created_at < cutoff, ~recent_chunk)
    ))


def end_silent_run(session: Session, *, run_id: uuid.UUID, silence: timedelta) -> bool:
    """End one silent run as partial; skip it if a request holds it (it is not silent then)."""
    run = session.scalar(select(Run).where(Run.id == run_id, Run.ended_at.is_(None))
                         .with_for_update(skip_locked=True))
    if run is None:
        return False
    last = session.scalar(select(func.max(RawChunk.received_at)).where(*_load_chunks(run.id)))
    run.ended_at = max(filter(None, [last, run.started_at, run.created_at]))
    if run.started_at is None:
        run.started_at = run.created_at
    run.status = "partial"
    run.status_reasons = [*(run.status_reasons or []), SILENCE_REASON.format(seconds=silence.total_seconds())]
    exp = session.get(Experiment, run.experiment_id)
    if exp is not None and exp.status == "running":
        busy = session.scalar(select(func.count()).select_from(Run).where(
            Run.experiment_id == exp.id, Run.status.in_(("pending", "running")), Run.id != run.id))
        if not busy:
            exp.status = "done"
    session.flush()
    return True


def sweep_once(silence: timedelta) -> int:
    """One pass, each run in its own short transaction so no lock outlives a row's update."""
    with unit_of_work() as session:
        candidates = silent_runs(session, silence=silence)
    ended = 0
    for run_id in candidates:
        with unit_of_work() as session:
            ended += end_silent_run(session, run_id=run_id, silence=silence)
    if ended:
        log.info("ended %d silent run(s) as partial", ended)
    return ended


# The trash purge (30-day-old deletions) needs no more than an hourly round.
PURGE_EVERY_S = 3600.0
_last_purge: float | None = None


def cluster_sweep(silence: timedelta) -> int:
    """Every periodic task of the cluster, in one round: silent runs, expired rate-limit counts, and
    hourly the trash purge, so N servers do each once (the caller holds the sweep lock)."""
    global _last_purge
    from perflab import ratelimit
    from perflab.trash import service as trash_service

    ended = sweep_once(silence)
    ratelimit.prune_expired()
    now = time.monotonic()
    if _last_purge is None or now - _last_purge >= PURGE_EVERY_S:
        trash_service.purge_once()
        _last_purge = now
    return ended


async def sweep_forever(silence_s: float) -> None:
    """The server's periodic sweep: cheap (an indexed query over unfinished runs) a few times per silence.

    Every server process runs this loop; only the one holding the cluster's sweep lock does the work
    (cluster/leader.py), so N servers sweep once, and another takes over when that one stops."""
    from perflab.cluster.leader import SWEEP_LOCK, Leadership

    silence = timedelta(seconds=silence_s)
    every = min(60.0, max(0.5, silence_s / 4))
    leader = Leadership(SWEEP_LOCK)
    try:
        while True:
            try:
                if await run_in_threadpool(leader.held):
                    await run_in_threadpool(cluster_sweep, silence)
            except Exception:
                log.warning("silent-run sweep failed; trying again in %.0f s", every, exc_info=True)
            await asyncio.sleep(every)
    finally:
        leader.release()
