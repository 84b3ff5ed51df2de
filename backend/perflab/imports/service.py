"""Importing pasted or uploaded tool output as a run.

Raw text is stored first, once: as the raw chunk of the stream it feeds when a file is one tool's
output, else as an artifact of the file as given. It goes through the same stream pipeline the agents
use, so an imported vmstat table becomes the same series a streamed one would, and a parser fix can
re-parse it (`perflab reparse RUN`). A streaming kind's text is parsed once, a block of lines at a time,
for the preview, the lines' times and the samples (imports/streaming.py).
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy import text as sql
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.alerts import service as alerts_service
from perflab.artifacts import service as artifacts_service
from perflab.errors import BadInput
from perflab.experiments import service as experiments_service
from perflab.imports.analyse import CONFIG_KIND, FACTS_KIND, Analysed, analyse_all, decode, imported, preview
from perflab.imports.schemas import ImportFile
from perflab.imports.streaming import Stamps, StreamRead
from perflab.ingest import pipeline
from perflab.parsers import host_facts
from perflab.projects.models import Project
from perflab.runs.models import RawChunk, Run, Stream, Summary

IMPORT_AGENT = "import"
# Re-exported: callers and tests read these from the service.
__all__ = ["CONFIG_KIND", "content_hash", "data_times", "decode", "import_run", "preview", "run_window"]


# Characters of a file hashed at a time: its UTF-8 bytes are never made whole (a 64 MB paste's were).
HASH_CHARS = 1 << 20


def content_hash(files: list[ImportFile], experiment: str) -> str:
    h = hashlib.sha256(experiment.encode())
    for f in sorted(files, key=lambda f: (f.name, f.content)):
        h.update(b"\0" + f.kind.encode() + b"\0" + (f.role or "").encode() + b"\0")
        content = f.content
        for at in range(0, len(content), HASH_CHARS):
            # UTF-8 of a string is that of its pieces, one after the other (a lone surrogate fails either way).
            h.update(content[at:at + HASH_CHARS].encode())
    return h.hexdigest()


def data_times(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """What one output says about when it ran: ``start``/``end`` (aware datetimes or None),
    ``naive`` (a time zone was assumed), ``duration_s`` (wrk's own figure)."""
    stamps: list[Any] = []
    if kind in ("vmstat", "pidstat"):
        stamps = [s.get("timestamp") for s in data.get("samples") or []]
    elif kind == "netqtop":
        stamps = [i.get("time") for i in data.get("intervals") or []]
    duration = data.get("duration_s") if kind in parsers.LOAD_KINDS else None
    found = Stamps()
    found.add(stamps)
    return found.times(duration)


def run_window(times: list[dict[str, Any]], now: datetime) -> tuple[datetime, datetime, list[str]]:
    """(start, end, notes) of an imported run from what its outputs say; the import time, with a
    note saying so, when none says anything."""
    starts = [t["start"] for t in times if t["start"] is not None]
    ends = [t["end"] for t in times if t["end"] is not None]
    durations = [float(t["duration_s"]) for t in times if isinstance(t.get("duration_s"), int | float)]
    notes: list[str] = []
    if not starts:
        notes.append("no output says when it ran (vmstat -t timestamps, pidstat times, netqtop times):"
                     " the start shown is the import time")
        start = now
        end = now + timedelta(seconds=max(durations)) if durations else now
        return start, end, notes
    start = min(starts)
    end = max(ends)
    if durations:
        # The load ran for wrk's duration; telemetry around it may start earlier or end later.
        end = max(end, start + timedelta(seconds=max(durations)))
    if any(t["naive"] for t in times):
        notes.append("the times in the outputs carry no time zone: they are read as UTC")
    return start, end, notes


def _add_stream(session: Session, *, run: Run, name: str, source: str, role: str, text: str,
                kept: StreamRead | None, start: datetime | None = None, step: float = 1.0) -> Stream:
    stream = Stream(run_id=run.id, agent_id=IMPORT_AGENT, role=role, source=source, name=name, lines=0, samples=0,
                    dropped=0, max_seq=1, chunks=1, parsed_seq=0, closed_seq=1, state="closed", parser_state={})
    session.add(stream)
    session.flush()
    # Each table starts when it says it started: pidstat begun a second after vmstat charts so.
    base = (start or run.started_at or datetime.now(UTC)).timestamp()
    if kept is None:
        lines = text.splitlines()
        session.add(RawChunk(run_id=run.id, stream_id=stream.id, seq=1, received_at=datetime.now(UTC),
                             line_count=len(lines), data_gz=pipeline.encode_lines((base, 0.0, ln) for ln in lines)))
        stream.lines = len(lines)
        session.flush()
        pipeline.parse_pending(session, stream)
        pipeline.finish_stream(session, stream, run)
        stream.closed_at = datetime.now(UTC)
        return stream
    # The one read of the text (imports/streaming.py): the raw chunk is written from the text again, each
    # line with its interval's time; the samples are the read's columns.
    data_gz, last_wall, points = kept.store(text, base, step)
    session.add(RawChunk(run_id=run.id, stream_id=stream.id, seq=1, received_at=datetime.now(UTC),
                         line_count=kept.lines, data_gz=data_gz))
    stream.lines = kept.lines
    session.flush()
    parsed = pipeline.Parsed(stream, {"parser": kept.state})
    parsed.buf = points
    pipeline.store_parsed(session, stream, parsed, last_seq=1, last_wall=last_wall, live=False)
    # Everything the stream holds is in hand: its statistics need not read it back.
    pipeline.finish_stream(session, stream, run, known=parsed.buf.stored)
    stream.closed_at = datetime.now(UTC)
    return stream


def _attach(session: Session, *, project: Project, run: Run, file: ImportFile, content: str | bytes | None,
            parts: list[Analysed]) -> None:
    """Keep what was not read as attachments of the run, each with its note: the whole file when nothing
    in it was read, else each part no parser read (the file as given is kept whole beside them)."""
    if content is None:
        return  # not even decodable: its note says why, there is nothing to keep
    if not any(imported(p[2]) for p in parts) and not any(p[2].get("kind") == CONFIG_KIND for p in parts):
        info = parts[0][2]
        note = info["note"] if len(parts) == 1 else "; ".join(
            f"lines {p[2].get('start_line')}-{p[2].get('end_line')}: {p[2]['note']}" for p in parts)
        data = content if isinstance(content, bytes) else content.encode()
        row = artifacts_service.store(
            session, project_id=project.id, run_id=run.id, kind="attachment", name=file.name, data=data,
            role=file.role or info["role"], note=note,
            content_type="application/octet-stream" if isinstance(content, bytes) else "text/plain; charset=utf-8")
        for p in parts:
            p[2]["attachment_id"] = row.id
        return
    for text, _, info, _ in parts:
        if info.get("attachment"):
            name = f"{file.name} (lines {info.get('start_line')}-{info.get('end_line')})"
            row = artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="attachment",
                                          name=name, data=text.encode(), role=info["role"], note=info["note"],
                                          content_type="text/plain; charset=utf-8")
            info["attachment_id"] = row.id


def _store_facts(session: Session, *, run: Run, facts: dict[str, list[dict[str, Any]]]) -> None:
    """One host-facts summary per role, merged from every file or transcript part that told something about
    that host, in the agent's keys (``sources`` names the files and commands it came from)."""
    for role, parts in facts.items():
        merged = host_facts.merge([{k: v for k, v in p.items() if k not in ("sources", "warnings")} for p in parts])
        merged["sources"] = [s for p in parts for s in p.get("sources", [])]
        session.add(Summary(run_id=run.id, role=role, kind=FACTS_KIND, data=merged, warnings=[]))


def import_run(
    session: Session, *, project: Project, experiment: str, label: str, hypothesis: str, files: list[ImportFile]
) -> dict[str, Any]:
    digest = content_hash(files, experiment)
    # The same import sent twice at once: the second waits here until the first commits, then finds its
    # run and answers "duplicate" instead of failing on the unique (project, content hash) at insert.
    session.execute(sql("SELECT pg_advisory_xact_lock(CAST(:project AS integer), CAST(:digest AS integer))"),
                    {"project": project.id, "digest": int(digest[:8], 16) - 2**31})
    existing = session.scalar(select(Run).where(Run.project_id == project.id, Run.content_hash == digest))
    analysed = analyse_all(files)
    infos = [a[2] for _, parts in analysed for a in parts]
    if existing is not None:
        return {"run": existing, "duplicate": True, "files": infos}
    if not any(imported(i) for i in infos):
        # Nothing at all to read: a run of attachments only would be an empty run. Name every problem.
        split_files = {n for n, c in Counter(i["name"] for i in infos).items() if c > 1}
        names = "; ".join(
            i["name"] + (f" (lines {i['start_line']}-{i['end_line']})" if i["name"] in split_files else "")
            + f": {i.get('error') or 'not recognised: no parser knows this output (name its kind to read it)'}"
            for i in infos)
        raise BadInput(f"nothing was imported: {names}")
    exp = experiments_service.get_or_create(session, project=project, name=experiment, hypothesis=hypothesis)
    times = {id(a): a[3].times() if a[3] is not None else data_times(a[2]["kind"], a[1])
             for _, parts in analysed for a in parts if a[1] is not None}
    started, ended, time_notes = run_window(list(times.values()), datetime.now(UTC))
    run = Run(id=uuid.uuid4(), project_id=project.id, experiment_id=exp.id, label=label, status="complete",
              source="import", started_at=started, ended_at=ended, content_hash=digest, expected_roles=[],
              status_reasons=[], headline={})
    session.add(run)
    session.flush()
    used: set[str] = set()
    facts: dict[str, list[dict[str, Any]]] = {}
    for file, (whole, parts) in zip(files, analysed, strict=True):
        _attach(session, project=project, run=run, file=file, content=whole, parts=parts)
        if not any(imported(p[2]) for p in parts):
            continue
        # The file as given is the raw truth, kept once: when it is one tool's output, the stream's raw
        # chunk (or the sysctl artifact) already holds it verbatim; otherwise it is stored as given.
        only = parts[0][2]["kind"] if len(parts) == 1 else None
        if only not in pipeline.STREAMING and only not in pipeline.ONE_SHOT and only not in ("sysctl", CONFIG_KIND):
            role_of_file = file.role or parts[0][2]["role"]
            artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="import", name=file.name,
                                    data=str(whole).encode(), role=role_of_file,
                                    content_type="text/plain; charset=utf-8")
        for part in parts:
            text, data, info, kept = part
            if data is None or not imported(info):
                continue  # kept as an attachment, with its note
            kind, role = info["kind"], info["role"]
            if kind == CONFIG_KIND:
                # A transcript's `cat /etc/nginx/nginx.conf` is stored under the file's name, as its output.
                # Stored with the parsed form the analysis read it into: no comparison parses it again.
                artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="config",
                                        name=info.get("config_name") or file.name, data=text.encode(), role=role,
                                        content_type="text/plain; charset=utf-8", parsed=data.get("parsed"))
                continue
            if kind == FACTS_KIND:
                facts.setdefault(role, []).append(data)
                continue
            name = f"{kind}:{file.name}"
            while name in used:
                name += "'"
            used.add(name)
            if kind in pipeline.STREAMING or kind in pipeline.ONE_SHOT:
                stream = _add_stream(session, run=run, name=name[:200], source=kind, role=role, text=text,
                                     kept=kept, start=times[id(part)]["start"],
                                     step=float(info.get("interval_s") or 1.0))
                if stream.error:
                    info["warnings"].append(stream.error)
            else:
                session.add(Summary(run_id=run.id, role=role, kind=kind, data=data,
                                    warnings=list(data.get("warnings", []))))
                if kind == "sysctl":
                    artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="sysctl",
                                            name=file.name, data=text.encode(), role=role)
    _store_facts(session, run=run, facts=facts)
    warnings = [f"{i['name']}: {w}" for i in infos for w in i.get("warnings", [])]
    notes = [f"{i['name']}: {i['note']}" for i in infos if i.get("attachment") and i.get("note")]
    if warnings or time_notes or notes:
        run.status_reasons = (time_notes + notes + warnings)[:50]
    if exp.status == "planned":
        exp.status = "done"
    session.flush()
    alerts_service.announce_run(session, run=run)  # regression alerts: queued here, sent later
    return {"run": run, "duplicate": False, "files": infos}
