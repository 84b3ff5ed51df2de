"""Importing pasted or uploaded tool output as a run.

Raw text is stored first, once: as the raw chunk of the stream it feeds when a file is one tool's
output, else as an artifact of the file as given. It goes through the same stream pipeline the agents
use, so an imported vmstat table becomes the same series a streamed one would, and a parser fix can
re-parse it (`perflab reparse RUN`). A streaming kind's text is parsed once, for the preview, the lines'
times and the samples.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import uuid
import zlib
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.artifacts import service as artifacts_service
from perflab.errors import BadInput, PayloadTooLarge, Unprocessable
from perflab.experiments import service as experiments_service
from perflab.imports.schemas import ImportFile
from perflab.ingest import pipeline
from perflab.parsers.split import split
from perflab.projects.models import Project
from perflab.runs.models import RawChunk, Run, Stream, Summary

MAX_TEXT_BYTES = 256 * 1024 * 1024
IMPORT_AGENT = "import"
DEFAULT_ROLES = {"wrk": "loadgen"}


def decode(file: ImportFile) -> str:
    if file.encoding == "base64":
        try:
            raw = base64.b64decode(file.content, validate=True)
        except (binascii.Error, ValueError):
            raise BadInput(f"{file.name}: content is not valid base64") from None
    else:
        raw = file.content.encode("utf-8", "surrogatepass")
    if raw[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            raw = d.decompress(raw, MAX_TEXT_BYTES + 1)
        except zlib.error as exc:
            raise BadInput(f"{file.name}: corrupt gzip data ({exc})") from None
        if len(raw) > MAX_TEXT_BYTES:
            raise PayloadTooLarge(f"{file.name}: more than {MAX_TEXT_BYTES} bytes once decompressed")
    if b"\0" in raw[:65536]:
        raise BadInput(f"{file.name}: this is binary data, not the text output of a tool")
    return raw.decode("utf-8", "replace")


def _preview_values(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind == "wrk":
        return {k: data.get(k) for k in ("requests_per_sec", "requests", "non_2xx_3xx")} | {
            "latency_p99_ms": (data.get("latency_percentiles_ms") or {}).get("99"),
            "latency_avg_ms": (data.get("latency_ms") or {}).get("avg"),
        }
    if kind == "vmstat":
        samples = data.get("samples") or []
        return {"samples": len(samples), "columns": data.get("columns")}
    if kind == "pidstat":
        return {"samples": len(data.get("samples") or []), "averages": len(data.get("averages") or [])}
    if kind == "strace-c":
        top = sorted(data.get("syscalls") or [], key=lambda s: -(s.get("seconds") or 0))[:3]
        return {"syscalls": len(data.get("syscalls") or []), "top": [s.get("syscall") for s in top],
                "total_calls": (data.get("total") or {}).get("calls")}
    return {"keys": sorted(data)[:10]}


Analysed = tuple[str, dict[str, Any] | None, dict[str, Any], pipeline.LineParse | None]


def _parse_part(file: ImportFile, kind: str, text: str, offset: int) -> Analysed:
    """(text, parsed JSON or None, preview, the line parse of a streaming kind) of one tool's output;
    parse errors go in the preview."""
    kept = None
    try:
        streaming = parsers.detect(text) if kind == "auto" else kind
        if streaming in pipeline.STREAMING:
            # Parsed line by line once; the import reuses the lines' records instead of parsing again.
            kept = pipeline.LineParse(streaming, text)
            data = kept.doc if kind != "auto" else {"kind": streaming, **kept.doc}
        else:
            data = parsers.parse(kind, text)
    except parsers.ParseError as exc:
        detected = parsers.detect(text) if kind == "auto" else kind
        # Lines are counted in the file the user gave, not in the part.
        error = str(exc) if exc.line is None else f"line {exc.line + offset}: {exc.message}"
        return text, None, {"name": file.name, "kind": detected, "ok": False, "error": error,
                            "role": file.role or DEFAULT_ROLES.get(detected or "", "target")}, None
    if kind == "auto":
        kind = str(data.get("kind"))
    role = file.role or DEFAULT_ROLES.get(kind, "target")
    return text, data, {"name": file.name, "kind": kind, "ok": True, "role": role,
                        "warnings": list(data.get("warnings", [])), "preview": _preview_values(kind, data)}, kept


# A config file (nginx.conf, ...) is no tool output: it is kept as a snapshot, diffed in comparisons and read
# by the findings rules (proxy_buffers, worker_processes).
CONFIG_KIND = "config"


def _looks_like_config(text: str) -> bool:
    from perflab.compare import configs

    return configs.looks_like_nginx(text)


def _config(file: ImportFile, text: str) -> Analysed:
    from perflab.compare import configs

    nginx = configs.looks_like_nginx(text)
    try:
        count = len(configs.nginx_directives(text) if nginx else configs.key_values(text))
    except configs.ConfigError as exc:
        raise Unprocessable(f"{file.name}: {exc}") from None
    data: dict[str, Any] = {"format": "nginx" if nginx else "key-value", "directives": count, "warnings": []}
    total = len(text.splitlines())
    return text, data, {"name": file.name, "kind": CONFIG_KIND, "ok": True, "role": file.role or "target",
                        "warnings": [], "preview": {"format": data["format"], "directives": count},
                        "start_line": 1 if total else None, "end_line": total or None}, None


def analyse(file: ImportFile) -> tuple[str, list[Analysed]]:
    """The file's text and one (text, parsed JSON or None, preview) per tool output the file holds: a paste of wrk's
    summary followed by a strace -c table is two parts, and lines no parser knows are a part too
    (reported, not imported), so nothing disappears silently."""
    text = decode(file)
    kind = file.kind
    if kind != "auto" and kind != CONFIG_KIND and kind not in parsers.KINDS:
        raise BadInput(f"{file.name}: unknown kind {kind!r}; use one of {', '.join(parsers.KINDS)},"
                       f" {CONFIG_KIND} or auto")
    if kind == CONFIG_KIND or (kind == "auto" and parsers.detect(text) is None and _looks_like_config(text)):
        return text, [_config(file, text)]
    parts = split(text) if kind == "auto" else []
    if len(parts) <= 1:
        one = _parse_part(file, kind, text, 0)
        total = len(text.splitlines())
        one[2].update(start_line=1 if total else None, end_line=total or None)
        return text, [one]
    out: list[Analysed] = []
    for part in parts:
        if part["kind"] is None:
            info = {"name": file.name, "kind": None, "ok": True, "imported": False,
                    "role": file.role or "target", "warnings": part["warnings"]}
            out.append((part["text"], None, info, None))
        else:
            out.append(_parse_part(file, part["kind"], part["text"], part["start_line"] - 1))
        out[-1][2].update(start_line=part["start_line"], end_line=part["end_line"], excerpt=part["preview"])
    return text, out


def preview(files: list[ImportFile]) -> list[dict[str, Any]]:
    return [a[2] for f in files for a in analyse(f)[1]]


def content_hash(files: list[ImportFile], experiment: str) -> str:
    h = hashlib.sha256(experiment.encode())
    for f in sorted(files, key=lambda f: (f.name, f.content)):
        h.update(b"\0" + f.kind.encode() + b"\0" + (f.role or "").encode() + b"\0" + f.content.encode())
    return h.hexdigest()


def _timestamps(kind: str, kept: pipeline.LineParse, base: float, parsed: pipeline.Parsed) -> list[float]:
    """Seconds for each line: one per sampling interval, so imported tables chart like streamed ones.

    Each line's records (from the one parse of the text) go into `parsed`, stored as the stream's samples."""
    out = []
    k = -1
    last_key: Any = object()
    for records in kept.records:
        for rec in records:
            # pidstat prints one line per process per interval: those share the interval's second.
            # vmstat rows and netqtop intervals are one interval each.
            key = (rec.get("time") or rec.get("timestamp")) if kind == "pidstat" else object()
            if key is None or key != last_key:
                k += 1
                last_key = key
        out.append(base + max(k, 0))
        if records:
            parsed.buf.add(records, round(out[-1] * 1e6))
    return out


def _when(value: Any) -> tuple[datetime | None, bool]:
    """(the moment an output printed, whether its time zone had to be assumed)."""
    if not isinstance(value, str):
        return None, False
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None, False
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC), True
    return moment, False


_OFFSET = re.compile(r"[+-]\d\d:\d\d")


def data_times(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """What one output says about when it ran: ``start``/``end`` (aware datetimes or None),
    ``naive`` (a time zone was assumed), ``duration_s`` (wrk's own figure)."""
    stamps: list[Any] = []
    if kind in ("vmstat", "pidstat"):
        stamps = [s.get("timestamp") for s in data.get("samples") or []]
    elif kind == "netqtop":
        stamps = [i.get("time") for i in data.get("intervals") or []]
    duration = data.get("duration_s") if kind == "wrk" else None
    first = next(((v, m) for v, m in zip(stamps, map(_when, stamps), strict=True) if m[0] is not None), None)
    if first is None:
        return {"start": None, "end": None, "naive": False, "duration_s": duration}
    last = next(m for m in map(_when, reversed(stamps)) if m[0] is not None)
    # A 100,000-line log has as many stamps: those ending in the first one's "+HH:MM" are aware without
    # parsing each (no naive ISO time ends so; a stamp that does not parse counts for nothing).
    tail = first[0][-6:]
    offset = tail if _OFFSET.fullmatch(tail) else None
    naive = first[1][1] or any(_when(v)[1] for v in stamps
                               if not (offset and isinstance(v, str) and v.endswith(offset)))
    return {"start": first[1][0], "end": last[0], "naive": naive, "duration_s": duration}


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
                kept: pipeline.LineParse | None, start: datetime | None = None) -> Stream:
    stream = Stream(run_id=run.id, agent_id=IMPORT_AGENT, role=role, source=source, name=name, lines=0, samples=0,
                    dropped=0, max_seq=1, chunks=1, parsed_seq=0, closed_seq=1, state="closed", parser_state={})
    session.add(stream)
    session.flush()
    lines = kept.lines if kept is not None else text.splitlines()
    # Each table starts when it says it started: pidstat begun a second after vmstat charts so.
    base = (start or run.started_at or datetime.now(UTC)).timestamp()
    parsed = pipeline.Parsed(stream, {"parser": kept.state}) if kept is not None else None
    times = _timestamps(source, kept, base, parsed) if kept is not None and parsed is not None else [base] * len(lines)
    session.add(RawChunk(run_id=run.id, stream_id=stream.id, seq=1, received_at=datetime.now(UTC),
                         line_count=len(lines),
                         data_gz=pipeline.encode_lines((t, 0.0, line) for t, line in zip(times, lines, strict=True))))
    stream.lines = len(lines)
    session.flush()
    if parsed is not None:
        pipeline.store_parsed(session, stream, parsed, last_seq=1, last_wall=times[-1] if times else None,
                              live=False)
        # Everything the stream holds is in hand: its statistics need not read it back.
        pipeline.finish_stream(session, stream, run, known=parsed.buf.stored)
    else:
        pipeline.parse_pending(session, stream)
        pipeline.finish_stream(session, stream, run)
    stream.closed_at = datetime.now(UTC)
    return stream


def import_run(
    session: Session, *, project: Project, experiment: str, label: str, hypothesis: str, files: list[ImportFile]
) -> dict[str, Any]:
    digest = content_hash(files, experiment)
    existing = session.scalar(select(Run).where(Run.project_id == project.id, Run.content_hash == digest))
    analysed = [analyse(f) for f in files]
    infos = [a[2] for _, parts in analysed for a in parts]
    if existing is not None:
        return {"run": existing, "duplicate": True, "files": infos}
    failed = [i for i in infos if not i["ok"]]
    if failed:
        names = "; ".join(f"{p['name']}: {p['error']}" for p in failed)
        raise BadInput(f"nothing was imported: {names}")
    exp = experiments_service.get_or_create(session, project=project, name=experiment, hypothesis=hypothesis)
    times = {id(a): data_times(a[2]["kind"], a[1]) for _, parts in analysed for a in parts if a[1] is not None}
    started, ended, time_notes = run_window(list(times.values()), datetime.now(UTC))
    run = Run(id=uuid.uuid4(), project_id=project.id, experiment_id=exp.id, label=label, status="complete",
              source="import", started_at=started, ended_at=ended, content_hash=digest, expected_roles=[],
              status_reasons=[], headline={})
    session.add(run)
    session.flush()
    used: set[str] = set()
    for file, (whole, parts) in zip(files, analysed, strict=True):
        # The file as given is the raw truth, kept once: when it is one tool's output, the stream's raw
        # chunk (or the sysctl artifact) already holds it verbatim; otherwise it is stored as given.
        only = parts[0][2]["kind"] if len(parts) == 1 else None
        if only not in pipeline.STREAMING and only not in pipeline.ONE_SHOT and only not in ("sysctl", CONFIG_KIND):
            role_of_file = file.role or parts[0][2]["role"]
            artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="import", name=file.name,
                                    data=whole.encode(), role=role_of_file, content_type="text/plain; charset=utf-8")
        for part in parts:
            text, data, info, kept = part
            if data is None:
                continue  # an unrecognised part: reported in its warnings, kept in the artifact
            kind, role = info["kind"], info["role"]
            if kind == CONFIG_KIND:
                artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="config",
                                        name=file.name, data=text.encode(), role=role,
                                        content_type="text/plain; charset=utf-8")
                continue
            name = f"{kind}:{file.name}"
            while name in used:
                name += "'"
            used.add(name)
            if kind in pipeline.STREAMING or kind in pipeline.ONE_SHOT:
                stream = _add_stream(session, run=run, name=name[:200], source=kind, role=role, text=text,
                                     kept=kept, start=times[id(part)]["start"])
                if stream.error:
                    info["warnings"].append(stream.error)
            else:
                session.add(Summary(run_id=run.id, role=role, kind=kind, data=data,
                                    warnings=list(data.get("warnings", []))))
                if kind == "sysctl":
                    artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="sysctl",
                                            name=file.name, data=text.encode(), role=role)
    warnings = [f"{i['name']}: {w}" for i in infos for w in i.get("warnings", [])]
    if warnings or time_notes:
        run.status_reasons = (time_notes + warnings)[:50]
    if exp.status == "planned":
        exp.status = "done"
    session.flush()
    return {"run": run, "duplicate": False, "files": infos}


