from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from perflab import shutdown
from perflab.cluster import live
from perflab.cluster.access import checks_for
from perflab.db import unit_of_work
from perflab.deps import OneHopRoute, PrincipalDep, SessionDep, caller_ref
from perflab.ingest import service as ingest_service
from perflab.runs.models import Run, Stream
from perflab.runs.router import ReadableRun
from perflab.series import service
from perflab.series.schemas import SeriesData, SeriesDataReply, SeriesRead

router = APIRouter(tags=["series"], route_class=OneHopRoute)


@router.get("/api/runs/{run_id}/series", response_model=list[SeriesRead])
def list_series(run: ReadableRun, db: SessionDep) -> list[SeriesRead]:
    return [SeriesRead.model_validate(s).model_copy(update={"points": n})
            for s, n in service.list_series(db, run_id=run.id)]


@router.get("/api/runs/{run_id}/series/data", response_model=SeriesDataReply)
def series_data(
    run: ReadableRun, db: SessionDep, ids: Annotated[list[int], Query()], max_points: int = 2000
) -> SeriesDataReply:
    data = service.series_data(db, run=run, series_ids=ids, max_points=max_points)
    origin = service.run_origin(run)
    return SeriesDataReply(run_id=str(run.id), started_at=origin.isoformat() if origin else None,
                           series=[SeriesData(**d) for d in data])



def _snapshot(run_id: Any) -> dict[str, Any]:
    with unit_of_work() as db:
        run = db.get(Run, run_id)
        if run is None:
            return {"gone": True}
        ingest_service.evaluate(db, run=run)
        streams = db.scalars(select(Stream).where(Stream.run_id == run_id).order_by(Stream.id)).all()
        return {
            "status": run.status,
            "status_reasons": run.status_reasons,
            "ended": run.ended_at is not None,
            "streams": [{"id": s.id, "name": s.name, "role": s.role, "lines": s.lines, "samples": s.samples,
                         "state": s.state} for s in streams],
        }


@router.get("/api/runs/{run_id}/events")
async def run_events(run: ReadableRun, principal: PrincipalDep, request: Request) -> StreamingResponse:
    """Server-sent events: a snapshot whenever the run changes.

    Every viewer of a run on this server reads one shared feed, recomputed when PostgreSQL notifies
    a change of the run (cluster/live.py), so viewers cost no snapshot query each. Access is checked
    again about once a second, for every open stream of the process at once (cluster/access.py): a
    member removed (or logged out, or a token revoked) stops receiving within about a second."""
    run_id = run.id
    project_id = run.project_id
    caller = caller_ref(principal)
    hub = live.hub_for(request.app.state, _snapshot)
    access = checks_for(request.app.state)

    async def events() -> AsyncIterator[bytes]:
        with access.watching(caller, project_id):
            async with hub.watch(run_id) as feed:
                seen = 0
                idle_s = 0.0
                since_check = 0.0
                while not await request.is_disconnected():
                    if since_check >= access.max_age_s or (feed.version != seen and feed.snapshot is not None):
                        since_check = 0.0
                        if not await run_in_threadpool(access.allowed, caller, project_id):
                            yield b'event: end\ndata: {"reason": "access revoked"}\n\n'
                            return
                    if feed.version != seen and feed.snapshot is not None:
                        snap = feed.snapshot
                        seen = feed.version
                        idle_s = 0.0
                        yield f"event: run\ndata: {json.dumps(snap)}\n\n".encode()
                        if snap.get("gone") or (snap.get("status") in ("complete", "partial", "failed")):
                            yield b"event: end\ndata: {}\n\n"
                            return
                    elif idle_s >= 15:
                        idle_s = 0.0
                        yield b": keep-alive\n\n"
                    if shutdown.stopping():
                        # The browser's EventSource reconnects on its own once the server is back.
                        yield b"event: shutdown\ndata: {}\n\n"
                        return
                    # Short waits: a closed tab and a shutdown are noticed within one.
                    if not await feed.changed_since(seen, shutdown.STEP_S * 5):
                        idle_s += shutdown.STEP_S * 5
                        since_check += shutdown.STEP_S * 5

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
