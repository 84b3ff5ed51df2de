"""Reading runs: detail with hosts, streams and summaries; lists for experiments and projects."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from perflab.errors import BadInput, NotFound
from perflab.experiments.models import Experiment
from perflab.hosts.models import Host
from perflab.projects.models import Project
from perflab.runs.models import Run, RunHost, Stream, Summary


def parse_run_id(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise BadInput(f"{value!r} is not a run id (a UUID)") from None


def get_run(session: Session, *, run_id: uuid.UUID) -> Run:
    run = session.get(Run, run_id)
    if run is None:
        raise NotFound(f"no run {run_id}")
    return run


def run_detail(session: Session, *, run: Run) -> dict[str, Any]:
    project = session.get(Project, run.project_id)
    experiment = session.get(Experiment, run.experiment_id)
    assert project is not None and experiment is not None
    hosts = session.execute(
        select(RunHost, Host).join(Host, Host.id == RunHost.host_id).where(RunHost.run_id == run.id)
    ).all()
    host_names = {h.id: h.hostname for _, h in hosts}
    streams = list(session.scalars(select(Stream).where(Stream.run_id == run.id).order_by(Stream.role, Stream.name)))
    summaries = list(session.scalars(select(Summary).where(Summary.run_id == run.id).order_by(Summary.id)))
    return {
        "run": run,
        "project_slug": project.slug,
        "experiment_name": experiment.name,
        "hosts": [
            {"host_id": h.id, "hostname": h.hostname, "role": rh.role, "state": rh.state, "agent_id": h.agent_id}
            for rh, h in hosts
        ],
        "streams": [
            {"stream": s, "host": host_names.get(s.host_id) if s.host_id is not None else None} for s in streams
        ],
        "summaries": summaries,
    }


def list_runs(
    session: Session,
    *,
    project: Project,
    experiment_id: int | None = None,
    status: str | None = None,
    page: int = 1,
    page_size: int = 50,
) -> dict[str, Any]:
    if page < 1 or not 1 <= page_size <= 500:
        raise BadInput("page starts at 1 and page_size is 1..500")
    stmt = (
        select(Run, Experiment.name)
        .join(Experiment, Experiment.id == Run.experiment_id)
        .where(Run.project_id == project.id)
    )
    if experiment_id is not None:
        stmt = stmt.where(Run.experiment_id == experiment_id)
    if status:
        stmt = stmt.where(Run.status == status)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    rows = session.execute(stmt.order_by(Run.created_at.desc()).limit(page_size).offset((page - 1) * page_size)).all()
    return {
        "items": [{"run": r, "experiment_name": name} for r, name in rows],
        "total": total,
        "page": page,
        "page_size": page_size,
    }


def stream_tail(session: Session, *, run: Run, stream_id: int, lines: int) -> dict[str, Any]:
    """The last `lines` raw lines of a stream, read from the newest chunks backwards."""
    from perflab.ingest.pipeline import decode_lines
    from perflab.runs.models import RawChunk

    if not 1 <= lines <= 1000:
        raise BadInput("lines must be 1..1000")
    stream = session.get(Stream, stream_id)
    if stream is None or stream.run_id != run.id:
        raise NotFound(f"no stream {stream_id} in run {run.id}")
    origin = (run.started_at or run.created_at).timestamp()
    out: list[tuple[float, str]] = []
    for (data,) in session.execute(
        select(RawChunk.data_gz).where(RawChunk.run_id == run.id, RawChunk.stream_id == stream.id)
        .order_by(RawChunk.seq.desc())
    ):
        chunk = [(round(wall - origin, 3), text) for wall, _mono, text in decode_lines(data)]
        out = chunk + out
        if len(out) >= lines:
            break
    return {"stream_id": stream.id, "name": stream.name, "total_lines": stream.lines,
            "lines": [{"t": t, "text": text} for t, text in out[-lines:]]}
