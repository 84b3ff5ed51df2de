"""Reading runs: detail with hosts, streams and summaries; lists for experiments and projects."""

from __future__ import annotations

import re
import uuid
from typing import Any

from sqlalchemy import func, select, update
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
    """The run, in the trash or not (routes check access first, then `live`)."""
    run = session.get(Run, run_id)
    if run is None:
        raise NotFound(f"no run {run_id}")
    return run


def live(run: Run) -> Run:
    if run.deleted_at is not None:
        raise NotFound(f"run {run.id} is in the trash; restore it from the project's Trash to see it")
    return run


ROLE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def update_run(session: Session, *, run: Run, changes: dict[str, Any]) -> Run:
    """Exclude/include a run, or rename its hosts' roles everywhere its data carries them."""
    if changes.get("excluded") is not None:
        if changes["excluded"]:
            reason = (changes.get("excluded_reason") or "").strip()
            if not reason:
                raise BadInput("say why the run is excluded (excluded_reason), e.g. 'the load generator was "
                               "throttled'")
            run.excluded, run.excluded_reason = True, reason
        else:
            run.excluded, run.excluded_reason = False, ""
    elif changes.get("excluded_reason") is not None and run.excluded:
        run.excluded_reason = changes["excluded_reason"].strip() or run.excluded_reason
    if changes.get("roles"):
        rename_roles(session, run=run, roles=changes["roles"])
    session.flush()
    return run


def rename_roles(session: Session, *, run: Run, roles: dict[str, str]) -> None:
    from perflab.artifacts.models import Artifact
    from perflab.profiles.models import Profile
    from perflab.runs.models import Series

    current = set(session.scalars(select(RunHost.role).where(RunHost.run_id == run.id)))
    current |= set(session.scalars(select(Stream.role).where(Stream.run_id == run.id)))
    current |= set(session.scalars(select(Summary.role).where(Summary.run_id == run.id)))
    for old, new in roles.items():
        if old not in current:
            raise BadInput(f"run {run.id} has no host with role {old!r} (it has {', '.join(sorted(current)) or 'none'})")
        if not ROLE.match(new):
            raise BadInput(f"role {new!r} may hold only letters, digits, '_', '.' and '-' (1 to 64 of them)")
    renamed = {old: new for old, new in roles.items() if old != new}
    after = {renamed.get(r, r) for r in current}
    if len(after) < len(current):
        raise BadInput("two hosts of a run cannot share a role; rename one of them to another name")
    # Through a temporary name, so swapping two roles (a -> b, b -> a) works.
    for step in ({old: f"\x01{i}" for i, old in enumerate(renamed)},
                 {f"\x01{i}": renamed[old] for i, old in enumerate(renamed)}):
        for old, new in step.items():
            for model in (RunHost, Stream, Series, Summary, Profile, Artifact):
                session.execute(update(model).where(model.run_id == run.id, model.role == old)
                                .values(role=new).execution_options(synchronize_session=False))
    run.expected_roles = [renamed.get(r, r) for r in run.expected_roles or []]


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
        .where(Run.project_id == project.id, Run.deleted_at.is_(None))
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


def project_roles(session: Session, *, project: Project) -> list[str]:
    """The host roles the project's runs use, most used first: what the Import page offers, so imported
    runs take the names agent runs already have (proxy, loadgen...) and line up with them in compare."""
    rows = session.execute(
        select(Stream.role, func.count(func.distinct(Stream.run_id)).label("n"))
        .join(Run, Run.id == Stream.run_id)
        .where(Run.project_id == project.id, Run.deleted_at.is_(None))
        .group_by(Stream.role)
        .order_by(func.count(func.distinct(Stream.run_id)).desc(), Stream.role)
    ).all()
    return [role for role, _ in rows if role]
