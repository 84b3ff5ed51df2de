"""Importing pasted or uploaded tool output as a run.

Raw text is stored first (an artifact per file), then fed through the same stream pipeline the agents
use, so an imported vmstat table becomes the same series a streamed one would, and a parser fix can
re-parse it (`perflab reparse RUN`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import uuid
import zlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab import parsers
from perflab.artifacts import service as artifacts_service
from perflab.errors import BadInput, PayloadTooLarge
from perflab.experiments import service as experiments_service
from perflab.imports.schemas import ImportFile
from perflab.ingest import pipeline
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


# A config file (nginx.conf, ...) is no tool output: it is kept as a snapshot, diffed in comparisons and read
# by the findings rules (proxy_buffers, worker_processes).
CONFIG_KIND = "config"


def _config(file: ImportFile, text: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    from perflab.compare import configs

    nginx = configs.looks_like_nginx(text)
    count = len(configs.nginx_directives(text) if nginx else configs.key_values(text))
    data: dict[str, Any] = {"format": "nginx" if nginx else "key-value", "directives": count, "warnings": []}
    return text, data, {"name": file.name, "kind": CONFIG_KIND, "ok": True, "role": file.role or "target",
                        "warnings": [], "preview": {"format": data["format"], "directives": count}}


def analyse(file: ImportFile) -> tuple[str, dict[str, Any] | None, dict[str, Any]]:
    """(text, parsed JSON or None, preview) for one file; parse errors go in the preview."""
    text = decode(file)
    kind = file.kind
    if kind != "auto" and kind != CONFIG_KIND and kind not in parsers.KINDS:
        raise BadInput(f"{file.name}: unknown kind {kind!r}; use one of {', '.join(parsers.KINDS)},"
                       f" {CONFIG_KIND} or auto")
    if kind == CONFIG_KIND:
        return _config(file, text)
    if kind == "auto" and parsers.detect(text) is None:
        from perflab.compare import configs

        if configs.looks_like_nginx(text):
            return _config(file, text)
    try:
        data = parsers.parse(kind, text)
    except parsers.ParseError as exc:
        detected = parsers.detect(text) if kind == "auto" else kind
        return text, None, {"name": file.name, "kind": detected, "ok": False, "error": str(exc),
                            "role": file.role or DEFAULT_ROLES.get(detected or "", "target")}
    if kind == "auto":
        kind = str(data.get("kind"))
    role = file.role or DEFAULT_ROLES.get(kind, "target")
    return text, data, {"name": file.name, "kind": kind, "ok": True, "role": role,
                        "warnings": list(data.get("warnings", [])), "preview": _preview_values(kind, data)}


def preview(files: list[ImportFile]) -> list[dict[str, Any]]:
    return [analyse(f)[2] for f in files]


def content_hash(files: list[ImportFile], experiment: str) -> str:
    h = hashlib.sha256(experiment.encode())
    for f in sorted(files, key=lambda f: (f.name, f.content)):
        h.update(b"\0" + f.kind.encode() + b"\0" + (f.role or "").encode() + b"\0" + f.content.encode())
    return h.hexdigest()


def _timestamps(kind: str, lines: list[str], base: float) -> list[float]:
    """Seconds for each line: one per sampling interval, so imported tables chart like streamed ones."""
    parser = parsers.line_parser(kind)
    out = []
    k = -1
    last_key: Any = object()
    for line in lines:
        try:
            records = parser.feed(line)
        except parsers.ParseError:
            records = []
        for rec in records:
            # pidstat prints one line per process per interval: those share the interval's second.
            # vmstat rows and netqtop intervals are one interval each.
            key = (rec.get("time") or rec.get("timestamp")) if kind == "pidstat" else object()
            if key is None or key != last_key:
                k += 1
                last_key = key
        out.append(base + max(k, 0))
    return out


def _add_stream(session: Session, *, run: Run, name: str, source: str, role: str, text: str) -> Stream:
    stream = Stream(run_id=run.id, agent_id=IMPORT_AGENT, role=role, source=source, name=name, lines=0, samples=0,
                    dropped=0, max_seq=1, chunks=1, parsed_seq=0, closed_seq=1, state="closed", parser_state={})
    session.add(stream)
    session.flush()
    lines = text.splitlines()
    base = (run.started_at or datetime.now(UTC)).timestamp()
    times = _timestamps(source, lines, base) if source in pipeline.STREAMING else [base] * len(lines)
    session.add(RawChunk(run_id=run.id, stream_id=stream.id, seq=1, received_at=datetime.now(UTC),
                         line_count=len(lines),
                         data_gz=pipeline.encode_lines((t, 0.0, line) for t, line in zip(times, lines, strict=True))))
    stream.lines = len(lines)
    session.flush()
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
    if existing is not None:
        return {"run": existing, "duplicate": True, "files": [a[2] for a in analysed]}
    failed = [a[2] for a in analysed if not a[2]["ok"]]
    if failed:
        names = "; ".join(f"{p['name']}: {p['error']}" for p in failed)
        raise BadInput(f"nothing was imported: {names}")
    exp = experiments_service.get_or_create(session, project=project, name=experiment, hypothesis=hypothesis)
    now = datetime.now(UTC)
    run = Run(id=uuid.uuid4(), project_id=project.id, experiment_id=exp.id, label=label, status="complete",
              source="import", started_at=now, ended_at=now, content_hash=digest, expected_roles=[],
              status_reasons=[], headline={})
    session.add(run)
    session.flush()
    used: set[str] = set()
    for file, (text, data, info) in zip(files, analysed, strict=True):
        assert data is not None
        kind, role = info["kind"], info["role"]
        artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="import", name=file.name,
                                data=text.encode(), role=role, content_type="text/plain; charset=utf-8")
        if kind == CONFIG_KIND:
            artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="config", name=file.name,
                                    data=text.encode(), role=role, content_type="text/plain; charset=utf-8")
            continue
        name = f"{kind}:{file.name}"
        while name in used:
            name += "'"
        used.add(name)
        if kind in pipeline.STREAMING or kind in pipeline.ONE_SHOT:
            stream = _add_stream(session, run=run, name=name[:200], source=kind, role=role, text=text)
            if stream.error:
                info["warnings"].append(stream.error)
        else:
            session.add(Summary(run_id=run.id, role=role, kind=kind, data=data,
                                warnings=list(data.get("warnings", []))))
            if kind == "sysctl":
                artifacts_service.store(session, project_id=project.id, run_id=run.id, kind="sysctl",
                                        name=file.name, data=text.encode(), role=role)
    warnings = [f"{i['name']}: {w}" for i in (a[2] for a in analysed) for w in i.get("warnings", [])]
    if warnings:
        run.status_reasons = warnings[:50]
    if exp.status == "planned":
        exp.status = "done"
    session.flush()
    return {"run": run, "duplicate": False, "files": [a[2] for a in analysed]}


