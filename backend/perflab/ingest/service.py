"""The agent side of the server: hello, long-poll, run orchestration, batches. Services flush only."""

from __future__ import annotations

import gzip
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from perflab.alerts import service as alerts_service
from perflab.errors import BadInput, Conflict, NotFound
from perflab.experiments import service as experiments_service
from perflab.experiments.models import Experiment
from perflab.hosts import service as hosts_service
from perflab.hosts.models import Host
from perflab.hosts.service import ONLINE_WINDOW
from perflab.ingest import pipeline, workers
from perflab.ingest.schemas import Batch, Hello, Join, RunCreate
from perflab.ingest.sweep import SILENCE_REASON
from perflab.projects.models import Project
from perflab.runs.load import load_seconds
from perflab.runs.models import RawChunk, RawChunkPart, Run, RunHost, Stream
from perflab.tokens.service import TokenRef

# Streams still open this long after the load finished make the run partial.
CLOSE_GRACE = timedelta(seconds=60)
MAX_CLOCK_SKEW_S = 1.0
SILENCE_REASON_START = SILENCE_REASON.split("{", 1)[0]


def now() -> datetime:
    return datetime.now(UTC)


def _ts(value: float | None) -> datetime:
    return datetime.fromtimestamp(value, UTC) if value is not None else now()


def project_of(session: Session, token: TokenRef) -> Project:
    project = session.get(Project, token.project_id)
    assert project is not None
    return project


def hello(session: Session, *, token: TokenRef, body: Hello) -> Host:
    host = session.scalar(select(Host).where(Host.project_id == token.project_id, Host.agent_id == body.agent_id))
    if host is None:
        host = Host(project_id=token.project_id, agent_id=body.agent_id, hostname=body.hostname, role=body.role)
        session.add(host)
    host.hostname = body.hostname
    host.role = body.role
    host.agent_version = body.version
    host.facts = body.facts
    host.capabilities = body.capabilities
    host.collectors = body.collectors
    host.last_seen_at = now()
    session.flush()
    return host


def get_host(session: Session, *, token: TokenRef, agent_id: str) -> Host:
    host = session.scalar(select(Host).where(Host.project_id == token.project_id, Host.agent_id == agent_id))
    if host is None:
        raise NotFound(f"agent {agent_id} has not said hello to this project")
    return host


def heartbeat(session: Session, *, token: TokenRef, agent_id: str, data: dict[str, Any]) -> None:
    host = get_host(session, token=token, agent_id=agent_id)
    host.heartbeat = {**data, "at": now().isoformat()}
    host.last_seen_at = now()


def touch(session: Session, *, token: TokenRef, agent_id: str) -> Host:
    host = get_host(session, token=token, agent_id=agent_id)
    hosts_service.mark_seen(session, host_id=host.id, seen=host.last_seen_at)
    return host


def runs_for_host(session: Session, *, host: Host) -> list[dict[str, Any]]:
    """Runs this daemon should collect for, and joined runs that ended (so it closes its streams)."""
    out = []
    active = session.execute(
        select(Run, RunHost.state, Experiment.name)
        .join(Experiment, Experiment.id == Run.experiment_id)
        .outerjoin(RunHost, (RunHost.run_id == Run.id) & (RunHost.host_id == host.id))
        .where(Run.project_id == host.project_id, Run.source == "agent",
               Run.created_at > now() - timedelta(days=2))
        # Waiting or running runs, and runs this host joined whose streams it has not closed yet.
        .where(Run.status.in_(("pending", "running")) | RunHost.state.not_in(("done", "failed")))
    ).all()
    for run, joined_state, experiment in active:
        roles = list(run.expected_roles or [])
        if roles and host.role not in roles and joined_state is None:
            continue
        if run.ended_at is not None:
            if joined_state is None or joined_state in ("done", "failed"):
                continue
            state = "ended"
        elif run.status in ("pending", "running"):
            state = "running" if run.started_at is not None else "waiting"
        else:
            continue
        out.append({"run_id": run.id, "experiment": experiment, "state": state, "wait_for_roles": roles,
                    "load_seconds": load_seconds(run.load_command)})
    return out


def create_run(session: Session, *, token: TokenRef, body: RunCreate, base_url: str) -> tuple[Run, bool]:
    project = project_of(session, token)
    if body.project is not None and body.project != project.slug:
        raise Conflict(f"this token belongs to project {project.slug!r}, not {body.project!r}")
    existing = session.get(Run, body.run_id)
    if existing is not None:
        if existing.project_id != project.id:
            raise Conflict("this run id is taken")
        return existing, False
    experiment = experiments_service.get_or_create(
        session, project=project, name=body.experiment, hypothesis=body.hypothesis
    )
    if body.wait_for_roles is None:
        roles = sorted(set(session.scalars(
            select(Host.role).where(Host.project_id == project.id, Host.last_seen_at > now() - ONLINE_WINDOW)
        )))
    else:
        roles = sorted(set(body.wait_for_roles))
    run = Run(
        id=body.run_id, project_id=project.id, experiment_id=experiment.id, label=body.label,
        status="pending", source="agent", load_command=body.load_command, expected_roles=roles,
        status_reasons=[], headline={},
    )
    session.add(run)
    if experiment.status == "planned":
        experiment.status = "running"
    session.flush()
    return run, True


def get_project_run(session: Session, *, token: TokenRef, run_id: uuid.UUID) -> Run:
    run = session.get(Run, run_id)
    if run is None or run.project_id != token.project_id:
        raise NotFound(f"no run {run_id} in this token's project")
    return run


def run_status(session: Session, *, run: Run) -> dict[str, Any]:
    evaluate(session, run=run)
    hosts = session.execute(
        select(RunHost, Host).join(Host, Host.id == RunHost.host_id).where(RunHost.run_id == run.id)
    ).all()
    joined_roles = {rh.role for rh, _ in hosts}
    return {
        "run_id": run.id,
        "status": run.status,
        "status_reasons": run.status_reasons,
        "hosts": [{"agent_id": h.agent_id, "hostname": h.hostname, "role": rh.role, "state": rh.state}
                  for rh, h in hosts],
        "wait_for_roles": run.expected_roles,
        "missing_roles": [r for r in run.expected_roles if r not in joined_roles],
    }


def join(session: Session, *, token: TokenRef, run: Run, body: Join) -> None:
    host = touch(session, token=token, agent_id=body.agent_id)
    rh = session.get(RunHost, (run.id, host.id))
    if rh is None:
        rh = RunHost(run_id=run.id, host_id=host.id, role=body.role, joined_at=now())
        session.add(rh)
    rh.state = "collecting"
    rh.detail = {"streams": body.streams, "failed": body.failed}
    session.flush()


def start(session: Session, *, run: Run, started_at: float | None) -> None:
    if run.started_at is None:
        run.started_at = _ts(started_at)
    if run.status == "pending":
        run.status = "running"


def finish(session: Session, *, run: Run, exit_code: int | None, ended_at: float | None) -> None:
    # Judged now if every stream is finished, else by the worker that finishes the last one: the run
    # row is locked so that one of the two sees the other's commit (ingest/workers.py).
    session.refresh(run, with_for_update=True)
    if run.ended_at is None:
        run.ended_at = _ts(ended_at)
        run.exit_code = exit_code
        if run.started_at is None:
            run.started_at = run.created_at
        if run.status == "pending":
            run.status = "running"
    evaluate(session, run=run)


def _stream_for(session: Session, *, token: TokenRef, agent_id: str, batch: Batch,
                cache: dict[tuple[uuid.UUID, str], Stream], hosts: dict[str, Host | None]) -> Stream:
    key = (batch.run_id, batch.stream)
    found = cache.get(key)
    if found is not None:
        return found
    # The common case, a stream that exists, in one statement: the run's project checked and the stream
    # locked (parsing order depends on it) together.
    stream = session.scalar(
        select(Stream).join(Run, Run.id == Stream.run_id)
        .where(Stream.run_id == batch.run_id, Stream.agent_id == agent_id, Stream.name == batch.stream,
               Run.project_id == token.project_id)
        .with_for_update(of=Stream).execution_options(populate_existing=True)
    )
    if stream is not None:
        cache[key] = stream
        return stream
    run = session.get(Run, batch.run_id)
    if run is None or run.project_id != token.project_id:
        raise NotFound(f"no run {batch.run_id} in this token's project")
    stream = session.scalar(
        select(Stream).where(Stream.run_id == batch.run_id, Stream.agent_id == agent_id, Stream.name == batch.stream)
    )
    if stream is None:
        if agent_id not in hosts:
            hosts[agent_id] = session.scalar(
                select(Host).where(Host.project_id == token.project_id, Host.agent_id == agent_id)
            )
        host = hosts[agent_id]
        session.execute(
            insert(Stream).values(
                run_id=batch.run_id, host_id=host.id if host else None, agent_id=agent_id, role=batch.role,
                source=batch.source, name=batch.stream, lines=0, samples=0, dropped=0, max_seq=0, chunks=0,
                parsed_seq=0, state="open", parser_state={},
            ).on_conflict_do_nothing(index_elements=["run_id", "agent_id", "name"])
        )
        stream = session.scalar(
            select(Stream).where(Stream.run_id == batch.run_id, Stream.agent_id == agent_id,
                                 Stream.name == batch.stream).with_for_update()
        )
        assert stream is not None
    else:
        # Serialise concurrent batches of one stream: parsing order depends on it.
        session.refresh(stream, with_for_update=True)
    cache[key] = stream
    return stream


# A batch, with parse workers on: the raw chunk stored (deduplicated on run, stream, seq), the stream's
# counters moved and the workers notified (at commit), in one round trip. The run's project is checked in
# the same statement; no stream row is read first nor held beyond this statement's update, so an answer
# never waits for a parse (workers own a stream by an advisory lock, ingest/workers.py). A stream's first
# batch creates it here too, with this batch counted (a CTE's UPDATE cannot see a row another CTE of the
# statement inserted): created through the ORM it took eight more statements, 18 ms of the serving
# process's CPU, so 40 agents starting a run at once waited 1.5 s for their first answers.
STORE_RAW = text("""
WITH found AS (
    SELECT s.id FROM stream s JOIN run r ON r.id = s.run_id
    WHERE s.run_id = :run AND s.agent_id = :agent AND s.name = :name AND r.project_id = :project
), made AS (
    INSERT INTO stream (run_id, host_id, agent_id, role, source, name, lines, samples, dropped, refused, max_seq,
                        chunks, parsed_seq, closed_seq, state, error, parser_state)
    SELECT r.id, (SELECT h.id FROM host h WHERE h.project_id = :project AND h.agent_id = :agent), :agent, :role,
           :source, :name, :n, 0, :dropped, :refused, :seq, 1, 0,
           CASE WHEN :closed THEN CAST(:seq AS bigint) END,
           CASE WHEN CAST(:error AS text) IS NULL THEN 'open' ELSE 'failed' END, CAST(:error AS text), '{}'
    FROM run r WHERE r.id = :run AND r.project_id = :project AND NOT EXISTS (SELECT FROM found)
    ON CONFLICT (run_id, agent_id, name) DO NOTHING
    RETURNING id
), st AS (
    SELECT id FROM found UNION ALL SELECT id FROM made
), ins AS (
    INSERT INTO raw_chunk (run_id, stream_id, seq, received_at, line_count, data_gz)
    SELECT :run, st.id, :seq, :received, :n, :data FROM st
    ON CONFLICT (run_id, stream_id, seq) DO NOTHING
    RETURNING stream_id
), upd AS (
    UPDATE stream SET lines = stream.lines + :n, chunks = stream.chunks + 1,
        max_seq = greatest(stream.max_seq, :seq), dropped = greatest(stream.dropped, :dropped),
        refused = stream.refused + :refused, error = coalesce(CAST(:error AS text), stream.error),
        state = CASE WHEN CAST(:error AS text) IS NULL THEN stream.state ELSE 'failed' END,
        closed_seq = CASE WHEN :closed THEN CAST(:seq AS bigint) ELSE stream.closed_seq END
    FROM ins JOIN found ON found.id = ins.stream_id WHERE stream.id = ins.stream_id
    RETURNING stream.id
)
SELECT (SELECT id FROM st) AS stream_id, EXISTS (SELECT FROM ins) AS stored, pg_notify(:channel, '')
""")


def _store_raw(session: Session, *, token: TokenRef, agent_id: str, batch: Batch) -> bool | None:
    """STORE_RAW for one batch: whether it was new (False: a duplicate), None when its stream neither exists
    nor could be made here (a run of another project, or another request creating it this instant)."""
    row = session.execute(STORE_RAW, {
        "run": batch.run_id, "agent": agent_id, "name": batch.stream, "project": token.project_id,
        "role": batch.role, "source": batch.source,
        "seq": batch.seq, "received": now(), "n": len(batch.lines), "data": pipeline.encode_lines(batch.lines),
        "dropped": batch.dropped, "refused": batch.refused_lines, "error": batch.error or None,
        "closed": batch.closed, "channel": workers.CHANNEL,
    }).one()
    return None if row.stream_id is None else bool(row.stored)


def ingest(session: Session, *, token: TokenRef, agent_id: str, batches: list[Batch]) -> list[dict[str, Any]]:
    """Store raw chunks (deduplicated on run, stream, seq); without parse workers, parse what became
    contiguous."""
    acks = []
    cache: dict[tuple[uuid.UUID, str], Stream] = {}
    hosts: dict[str, Host | None] = {}
    touched: dict[int, Stream] = {}
    fresh: dict[int, dict[int, list[Any]]] = {}
    fast = workers.enabled()
    # Lock streams in a stable order so two requests never deadlock.
    for sent in sorted(batches, key=lambda b: (str(b.run_id), b.stream, b.seq, b.part or 0)):
        if fast and not (sent.parts is not None and sent.parts > 1) and (sent.run_id, sent.stream) not in cache:
            stored = _store_raw(session, token=token, agent_id=agent_id, batch=sent)
            if stored is not None:
                acks.append({"run_id": sent.run_id, "stream": sent.stream, "seq": sent.seq, "duplicate": not stored})
                continue
        stream = _stream_for(session, token=token, agent_id=agent_id, batch=sent, cache=cache, hosts=hosts)
        if sent.parts is not None and sent.parts > 1:
            whole = _assemble_part(session, stream=stream, batch=sent)
            if whole is None:
                acks.append({"run_id": sent.run_id, "stream": sent.stream, "seq": sent.seq, "duplicate": False})
                continue
            batch = whole
        else:
            batch = sent
        inserted = session.execute(
            insert(RawChunk).values(
                run_id=batch.run_id, stream_id=stream.id, seq=batch.seq, received_at=now(),
                line_count=len(batch.lines), data_gz=pipeline.encode_lines(batch.lines),
            ).on_conflict_do_nothing(index_elements=["run_id", "stream_id", "seq"]).returning(RawChunk.seq)
        ).first()
        duplicate = inserted is None
        if not duplicate:
            stream.lines += len(batch.lines)
            stream.chunks += 1
            stream.max_seq = max(stream.max_seq, batch.seq)
            stream.dropped = max(stream.dropped, batch.dropped)
            stream.refused += batch.refused_lines
            if batch.error:
                stream.error = batch.error
                stream.state = "failed"
            if batch.closed:
                stream.closed_seq = batch.seq
            touched[stream.id] = stream
            fresh.setdefault(stream.id, {})[batch.seq] = batch.lines
        acks.append({"run_id": batch.run_id, "stream": batch.stream, "seq": batch.seq, "duplicate": duplicate})
    if touched and workers.enabled():
        # Parsing is the workers' (ingest/workers.py): this request answers once the raw lines commit.
        workers.announce(session)
        session.flush()
        return acks
    runs: dict[uuid.UUID, Run] = {}
    for stream in touched.values():
        workers.advance(session, stream, fresh=fresh.get(stream.id), runs=runs)
    for run in runs.values():
        evaluate(session, run=run)
    session.flush()
    return acks


def _assemble_part(session: Session, *, stream: Stream, batch: Batch) -> Batch | None:
    """Keep one part of a split batch; once all `parts` are here, return the whole batch (else None)."""
    assert batch.part is not None and batch.parts is not None
    if session.get(RawChunk, (batch.run_id, stream.id, batch.seq)) is not None:
        return batch.model_copy(update={"part": None, "parts": None})  # stored already: a duplicate
    payload = {"lines": batch.lines, "dropped": batch.dropped, "closed": batch.closed, "error": batch.error}
    session.execute(insert(RawChunkPart).values(
        run_id=batch.run_id, stream_id=stream.id, seq=batch.seq, parts=batch.parts, part=batch.part,
        data_gz=gzip.compress(json.dumps(payload).encode(), compresslevel=3),
    ).on_conflict_do_nothing())
    rows = session.execute(
        select(RawChunkPart.part, RawChunkPart.data_gz).where(
            RawChunkPart.run_id == batch.run_id, RawChunkPart.stream_id == stream.id,
            RawChunkPart.seq == batch.seq, RawChunkPart.parts == batch.parts).order_by(RawChunkPart.part)
    ).all()
    if len(rows) < batch.parts:
        return None
    pieces: list[Any] = [json.loads(gzip.decompress(data)) for _, data in rows]
    session.execute(delete(RawChunkPart).where(
        RawChunkPart.run_id == batch.run_id, RawChunkPart.stream_id == stream.id, RawChunkPart.seq == batch.seq))
    return batch.model_copy(update={
        "lines": [tuple(line) for p in pieces for line in p["lines"]],
        "dropped": max(p["dropped"] for p in pieces),
        "closed": any(p["closed"] for p in pieces),
        "error": next((p["error"] for p in pieces if p["error"]), None),
        "part": None, "parts": None,
    })


def evaluate(session: Session, *, run: Run) -> None:
    """Decide complete / partial once the load has finished and the streams closed (or the grace ran out)."""
    if run.ended_at is None or run.source != "agent":
        return
    streams = list(session.scalars(select(Stream).where(Stream.run_id == run.id)))
    joined = session.execute(
        select(RunHost, Host).join(Host, Host.id == RunHost.host_id).where(RunHost.run_id == run.id)
    ).all()
    # A stream a daemon declared when it joined counts as open until its closing batch is parsed,
    # even if not one line of it has arrived yet (strace -c only reports at the end).
    still_open: list[str] = []
    for rh, host in joined:
        mine = {st.name: st for st in streams if st.agent_id == host.agent_id}
        declared = set((rh.detail or {}).get("streams", [])) | set(mine)
        waiting = sorted(n for n in declared if n not in mine or mine[n].closed_at is None)
        if not waiting and rh.state != "done":
            rh.state = "done"
        still_open += [f"{rh.role}/{n}" for n in waiting]
    hosts_agents = {h.agent_id for _, h in joined}
    still_open += [f"{st.role}/{st.name}" for st in streams
                   if st.agent_id not in hosts_agents and st.closed_at is None]
    overdue = now() - run.ended_at > CLOSE_GRACE
    if still_open and not overdue:
        return
    # The silent-run sweep ended it: later batches must not erase why.
    reasons: list[str] = [r for r in run.status_reasons or [] if r.startswith(SILENCE_REASON_START)]
    joined_roles = {rh.role for rh, _ in joined}
    for role in run.expected_roles or []:
        if role not in joined_roles:
            reasons.append(f"no host with role {role} joined the run")
    for rh, host in joined:
        for name, why in (rh.detail or {}).get("failed", {}).items():
            reasons.append(f"{host.hostname}: collector {name} failed: {why}")
        offset = (host.heartbeat or {}).get("clock_offset_s")
        # The agent's error bar (half its fastest round trip): a slow backend is not a wrong clock.
        error = (host.heartbeat or {}).get("clock_error_s")
        error = error if isinstance(error, int | float) else 0.0
        if isinstance(offset, int | float) and abs(offset) - error > MAX_CLOCK_SKEW_S:
            reasons.append(f"{host.hostname}: clock differs from the server by {offset:+.2f} s")
    for st in streams:
        if st.dropped:
            reasons.append(f"{st.role}/{st.name}: {st.dropped} lines dropped by the agent's full spool")
        if st.refused:
            reasons.append(f"{st.role}/{st.name}: {st.refused} lines refused by the server as malformed "
                           "(kept in the agent's spool, rejected/)")
        if st.error:
            reasons.append(f"{st.role}/{st.name}: {st.error}")
    grace = int(CLOSE_GRACE.total_seconds())
    for name in still_open:
        reasons.append(f"{name}: not closed {grace} s after the run ended (batches missing)")
    if run.exit_code not in (0, None):
        reasons.append(f"the load command exited with code {run.exit_code}")
    finished = run.status in ("complete", "partial")
    run.status = "partial" if reasons else "complete"
    run.status_reasons = reasons
    if not finished:  # regression alerts, once per run: queued here, sent later
        alerts_service.announce_run(session, run=run)
    exp = session.get(Experiment, run.experiment_id)
    if exp is not None and exp.status == "running":
        busy = session.scalar(
            select(func.count()).select_from(Run).where(Run.experiment_id == exp.id,
                                                        Run.status.in_(("pending", "running")), Run.id != run.id)
        )
        if not busy:
            exp.status = "done"


def reparse_run(session: Session, *, run: Run) -> dict[str, int]:
    counts = {"streams": 0, "samples": 0}
    for stream in session.scalars(select(Stream).where(Stream.run_id == run.id).order_by(Stream.id)):
        workers.own(session, stream_id=stream.id)
        session.refresh(stream)  # what a worker that held it committed
        pipeline.reparse_stream(session, stream, run)
        counts["streams"] += 1
        counts["samples"] += stream.samples
    return counts


def check_agent_id(agent_id: str) -> None:
    if not agent_id or len(agent_id) > 64:
        raise BadInput("agent_id must be 1..64 characters")
