"""Artifacts: store the bytes first, then the row that points at them."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Iterator

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.artifacts.models import Artifact
from perflab.artifacts.storage import ArtifactMissing, Stored, get_storage
from perflab.errors import BadInput, NotFound

KINDS = ("raw", "config", "sysctl", "flamegraph", "import", "attachment", "other")
# Config and sysctl snapshots larger than this are not read as text (diffed, or read by findings rules).
MAX_SNAPSHOT_BYTES = 1024 * 1024

log = logging.getLogger(__name__)


def clean_name(name: str) -> str:
    """A display name: printable, no path separators, bounded. It never reaches the filesystem."""
    name = "".join(ch for ch in name if ch.isprintable()).replace("/", "_").replace("\\", "_").strip()
    return name[:255] or "unnamed"


def store(
    session: Session, *, project_id: int, run_id: uuid.UUID | None, kind: str, name: str, data: bytes,
    role: str = "", content_type: str = "application/octet-stream", note: str = "",
) -> Artifact:
    if kind not in KINDS:
        raise BadInput(f"artifact kind must be one of {', '.join(KINDS)}")
    key, sha = get_storage().put(data)
    return _add_row(session, project_id=project_id, run_id=run_id, kind=kind, name=name, role=role,
                    content_type=content_type, size=len(data), sha=sha, key=key, note=note)


def store_stream(
    session: Session, *, project_id: int, run_id: uuid.UUID | None, kind: str, name: str, chunks: Iterable[bytes],
    role: str = "", content_type: str = "application/octet-stream",
) -> Artifact:
    """`store` for a body that arrives in chunks (a request body, a spooled file): never held whole."""
    if kind not in KINDS:
        raise BadInput(f"artifact kind must be one of {', '.join(KINDS)}")
    stored = get_storage().put_stream(chunks)
    return _add_row(session, project_id=project_id, run_id=run_id, kind=kind, name=name, role=role,
                    content_type=content_type, size=stored.size, sha=stored.sha256, key=stored.key)


def put_stream(chunks: Iterable[bytes]) -> Stored:
    """Only the bytes, before any transaction (a slow upload holds no database connection); then
    `add_stored` records them, or `discard` removes them if the request fails."""
    return get_storage().put_stream(chunks)


def add_stored(session: Session, *, project_id: int, run_id: uuid.UUID | None, kind: str, name: str, stored: Stored,
               role: str = "", content_type: str = "application/octet-stream") -> Artifact:
    if kind not in KINDS:
        raise BadInput(f"artifact kind must be one of {', '.join(KINDS)}")
    return _add_row(session, project_id=project_id, run_id=run_id, kind=kind, name=name, role=role,
                    content_type=content_type, size=stored.size, sha=stored.sha256, key=stored.key)


def discard(stored: Stored) -> None:
    try:
        get_storage().delete(stored.key)
    except Exception:
        log.warning("could not delete the bytes of a failed upload (%s)", stored.key, exc_info=True)


def _add_row(session: Session, *, project_id: int, run_id: uuid.UUID | None, kind: str, name: str, role: str,
             content_type: str, size: int, sha: str, key: str, note: str = "") -> Artifact:
    row = Artifact(
        project_id=project_id, run_id=run_id, role=role, kind=kind, name=clean_name(name),
        content_type=content_type, size_bytes=size, sha256=sha, storage_key=key, note=note[:1000],
    )
    session.add(row)
    session.flush()
    return row


def get_artifact(session: Session, *, artifact_id: int) -> Artifact:
    row = session.get(Artifact, artifact_id)
    if row is None:
        raise NotFound(f"no artifact {artifact_id}")
    return row


def read(artifact: Artifact) -> bytes:
    return get_storage().get(artifact.storage_key)


def open_stream(artifact: Artifact) -> Iterator[bytes]:
    """The stored bytes as chunks. Opened now: a missing object is a 404 before any byte is sent."""
    try:
        return get_storage().open_stream(artifact.storage_key)
    except ArtifactMissing as exc:
        raise NotFound(f"the bytes of artifact {artifact.id} are missing from storage") from exc


def read_snapshot_text(artifact: Artifact) -> str | None:
    """A config or sysctl snapshot as text; None when it is binary, too large, or its bytes are unreadable.

    Callers show or skip what they cannot read: a storage problem must not take a comparison or the
    findings of a run down with it."""
    if artifact.size_bytes > MAX_SNAPSHOT_BYTES:
        return None
    try:
        data = read(artifact)
    except OSError:
        log.warning("artifact %s: stored bytes unreadable", artifact.id, exc_info=True)
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def list_for_run(session: Session, *, run_id: uuid.UUID, kind: str | None = None) -> list[Artifact]:
    stmt = select(Artifact).where(Artifact.run_id == run_id)
    if kind:
        stmt = stmt.where(Artifact.kind == kind)
    return list(session.scalars(stmt.order_by(Artifact.id)))
