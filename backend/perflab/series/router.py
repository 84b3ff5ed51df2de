from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from perflab import shutdown
from perflab.db import unit_of_work
from perflab.deps import OneHopRoute, PrincipalDep, SessionDep, caller_ref, still_reads
from perflab.ingest import service as ingest_service
from perflab.runs.models import Run, Stream
from perflab.runs.router import ReadableRun
from perflab.series import service
from perflab.series.schemas import SeriesData, SeriesDataReply, SeriesRead

router = APIRouter(tags=["series"], route_class=OneHopRoute)


@router.get("/api/runs/{run_id}/series", response_model=list[SeriesRead])
def list_series(run: ReadableRun, db: SessionDep) -> list[SeriesRead]:
    return [SeriesRead.model_validate(s) for s in service.list_series(db, run_id=run.id)]


@router.get("/api/runs/{run_id}/series/data", response_model=SeriesDataReply)
def series_data(
    run: ReadableRun, db: SessionDep, ids: Annotated[list[int], Query()], max_points: int = 2000
) -> SeriesDataReply:
    data = service.series_data(db, run=run, series_ids=ids, max_points=max_points)
    origin = service.run_origin(run)
    return SeriesDataReply(run_id=str(run.id), started_at=origin.isoformat() if origin else None,
                           series=[SeriesData(**d) for d in data])


def _snapshot(run_id: Any, caller: tuple[str, int]) -> dict[str, Any]:
    with unit_of_work() as db:
        run = db.get(Run, run_id)
        if run is None:
            return {"gone": True}
        if not still_reads(db, caller, run.project_id):
            return {"revoked": True}
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
    """Server-sent events: a snapshot whenever the run changes, at most once a second. Access is checked
    at every snapshot: a member removed (or logged out, or a token revoked) stops receiving at once."""
    run_id = run.id
    caller = caller_ref(principal)

    async def events() -> AsyncIterator[bytes]:
        last = None
        idle = 0
        while not await request.is_disconnected():
            snap = await run_in_threadpool(_snapshot, run_id, caller)
            if snap.get("revoked"):
                yield b'event: end\ndata: {"reason": "access revoked"}\n\n'
                return
            if snap != last:
                yield f"event: run\ndata: {json.dumps(snap)}\n\n".encode()
                last = snap
                idle = 0
            else:
                idle += 1
                if idle % 15 == 0:
                    yield b": keep-alive\n\n"
            if snap.get("gone") or (snap.get("status") in ("complete", "partial", "failed")):
                yield b"event: end\ndata: {}\n\n"
                return
            if await shutdown.pause(1.0):
                # The browser's EventSource reconnects on its own once the server is back.
                yield b"event: shutdown\ndata: {}\n\n"
                return

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
