"""Agent endpoints (docs/protocol.md). Every answer 2xx means the transaction has committed."""

from __future__ import annotations

import time
import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from perflab import shutdown
from perflab.artifacts import service as artifacts_service
from perflab.config import get_settings
from perflab.db import unit_of_work
from perflab.deps import IngestToken, OneHopRoute, SessionDep, ingest_token, principal_of
from perflab.experiments.models import Experiment
from perflab.ingest import service
from perflab.ingest.schemas import (
    AgentRunStatus,
    ArtifactCreated,
    BatchReply,
    BatchRequest,
    Finish,
    Heartbeat,
    Hello,
    HelloReply,
    Join,
    PollReply,
    RunCreate,
    RunCreated,
    ServerTime,
    Start,
)
from perflab.openapi import json_body, validated
from perflab.requestbody import sync_chunks
from perflab.tokens.service import TokenRef

router = APIRouter(tags=["agent"], route_class=OneHopRoute)

POLL_MAX_S = 30


@router.post("/api/agent/hello", response_model=HelloReply)
def hello(body: Hello, token: IngestToken, db: SessionDep) -> HelloReply:
    host = service.hello(db, token=token, body=body)
    return HelloReply(host_id=host.id, project=service.project_of(db, token).slug, server_time=time.time())


@router.post("/api/agent/heartbeat", response_model=ServerTime)
def heartbeat(body: Heartbeat, token: IngestToken, db: SessionDep) -> ServerTime:
    service.heartbeat(db, token=token, agent_id=body.agent_id, data=body.model_dump(exclude={"agent_id"}))
    return ServerTime(server_time=time.time())


def _poll_once(token: TokenRef, agent_id: str) -> list[dict]:  # type: ignore[type-arg]
    with unit_of_work() as db:
        host = service.touch(db, token=token, agent_id=agent_id)
        return service.runs_for_host(db, host=host)


@router.get("/api/agent/poll", response_model=PollReply)
async def poll(
    token: IngestToken,
    agent_id: Annotated[str, Query(min_length=8, max_length=64)],
    timeout: float = 25,
    known: Annotated[str | None, Query(max_length=20000)] = None,
) -> PollReply:
    """Long poll: answers as soon as the runs differ from what the daemon says it `known`s.

    Without `known`, any waiting, running or ended run is news. Async so that idle daemons waiting
    here hold no worker thread.
    """
    deadline = time.monotonic() + max(0.0, min(timeout, POLL_MAX_S))
    while True:
        runs = await run_in_threadpool(_poll_once, token, agent_id)
        current = ",".join(sorted(f"{r['run_id']}:{r['state']}" for r in runs))
        news = current != known if known is not None else bool(runs)
        if news or time.monotonic() >= deadline or await shutdown.pause(0.5):
            return PollReply(server_time=time.time(), runs=runs)  # type: ignore[arg-type]


@router.post("/api/agent/runs", response_model=RunCreated, status_code=201)
def create_run(body: RunCreate, token: IngestToken, db: SessionDep, response: Response) -> RunCreated:
    run, created = service.create_run(db, token=token, body=body, base_url=get_settings().base_url())
    if not created:
        response.status_code = 200
    project = service.project_of(db, token)
    exp = db.get(Experiment, run.experiment_id)
    return RunCreated(run_id=run.id, project=project.slug, experiment=exp.name if exp else body.experiment,
                      status=run.status, url=f"{get_settings().base_url()}/runs/{run.id}")


@router.get("/api/agent/runs/{run_id}", response_model=AgentRunStatus)
def run_status(run_id: uuid.UUID, token: IngestToken, db: SessionDep) -> AgentRunStatus:
    run = service.get_project_run(db, token=token, run_id=run_id)
    return AgentRunStatus(**service.run_status(db, run=run))


@router.post("/api/agent/runs/{run_id}/join")
def join(run_id: uuid.UUID, body: Join, token: IngestToken, db: SessionDep) -> dict[str, bool]:
    run = service.get_project_run(db, token=token, run_id=run_id)
    service.join(db, token=token, run=run, body=body)
    return {"ok": True}


@router.post("/api/agent/runs/{run_id}/start")
def start(run_id: uuid.UUID, body: Start, token: IngestToken, db: SessionDep) -> dict[str, bool]:
    run = service.get_project_run(db, token=token, run_id=run_id)
    service.start(db, run=run, started_at=body.started_at)
    return {"ok": True}


@router.post("/api/agent/runs/{run_id}/finish")
def finish(run_id: uuid.UUID, body: Finish, token: IngestToken, db: SessionDep) -> dict[str, bool]:
    run = service.get_project_run(db, token=token, run_id=run_id)
    service.finish(db, run=run, exit_code=body.exit_code, ended_at=body.ended_at)
    return {"ok": True}


@router.post("/api/ingest/batches", response_model=BatchReply, openapi_extra=json_body(BatchRequest))
async def ingest_batches(request: Request) -> Response:
    """The body is a BatchRequest: raw lines of the agent's streams. Answered once they are committed;
    parsing follows (the run page shows the lag)."""
    # The busiest route (every agent, a batch a second per stream): one thread hop and one transaction
    # check the token, validate the body (pydantic-core, straight from the JSON bytes) and store it. As a
    # declared body with token and session dependencies it took three hops and two transactions, each
    # with a pool checkout and its ping: ~10 ms of the serving process's CPU a batch, so a burst of 40
    # agents queued for 0.5-2 s (bench/ingest_bench.py --agents 40 --paced).
    body = await request.body()

    def store() -> bytes:
        with unit_of_work() as db:
            token = ingest_token(principal_of(request, db))
            sent = validated(BatchRequest, body)
            acks = service.ingest(db, token=token, agent_id=sent.agent_id, batches=sent.batches)
        return BatchReply(acked=acks).model_dump_json().encode()  # type: ignore[arg-type]

    return Response(await run_in_threadpool(store), media_type="application/json")


@router.post("/api/agent/runs/{run_id}/artifacts", response_model=ArtifactCreated, status_code=201)
async def upload_artifact(
    run_id: uuid.UUID,
    request: Request,
    token: IngestToken,
    db: SessionDep,
    kind: Annotated[str, Query(pattern=r"^(config|sysctl|raw|other)$")] = "raw",
    name: Annotated[str, Query(min_length=1, max_length=255)] = "upload",
    role: Annotated[str, Query(max_length=64)] = "",
) -> ArtifactCreated:
    def store() -> int:
        # One thread hop: a connection held between two would wait for a thread (see releases_connection).
        # The bytes go first and the transaction after, so no connection waits on a slow upload.
        # A config or sysctl snapshot's parsed form is stored with it, built from a bounded copy of its head.
        body_chunks = artifacts_service.SnapshotHead(sync_chunks(request)) if kind in artifacts_service.SNAPSHOT_KINDS else None
        stored = artifacts_service.put_stream(body_chunks if body_chunks is not None else sync_chunks(request))
        try:
            run = service.get_project_run(db, token=token, run_id=run_id)
            row = artifacts_service.add_stored(db, project_id=run.project_id, run_id=run.id, kind=kind, name=name,
                                               stored=stored, role=role,
                                               head=body_chunks.head if body_chunks is not None else None)
        except BaseException:
            artifacts_service.discard(stored)
            raise
        return row.id

    return ArtifactCreated(artifact_id=await run_in_threadpool(store))
