"""Runs whose `perflab-agent run` died: after a silence they end `partial`, not `running` forever."""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from perflab.db import unit_of_work
from perflab.experiments.models import Experiment
from perflab.runs.models import RawChunk, Run

log = logging.getLogger(__name__)

SILENCE_REASON = "no line from any agent for {seconds:.0f} s: the run's `perflab-agent run` stopped without finishing it"


def silent_runs(session: Session, *, silence: timedelta) -> list[uuid.UUID]:
    """Agent runs still pending/running with neither a new run nor a received batch within `silence`."""
    cutoff = datetime.now(UTC) - silence
    recent_chunk = exists().where(RawChunk.run_id == Run.id, RawChunk.received_at > cutoff)
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
    last = session.scalar(select(func.max(RawChunk.received_at)).where(RawChunk.run_id == run.id))
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


async def sweep_forever(silence_s: float) -> None:
    """The server's periodic sweep: cheap (an indexed query over unfinished runs) a few times per silence."""
    silence = timedelta(seconds=silence_s)
    every = min(60.0, max(0.5, silence_s / 4))
    while True:
        try:
            await run_in_threadpool(sweep_once, silence)
        except Exception:
            log.warning("silent-run sweep failed; trying again in %.0f s", every, exc_info=True)
        await asyncio.sleep(every)
