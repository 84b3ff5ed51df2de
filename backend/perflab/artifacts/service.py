"""Artifacts: store the bytes first, then the row that points at them."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from perflab.artifacts.models import Artifact
from perflab.artifacts.storage import ArtifactMissing, Stored, get_storage
from perflab.compare import configs
from perflab.errors import BadInput, NotFound

KINDS = ("raw", "config", "sysctl", "flamegraph", "import", "attachment", "other")
# Config and sysctl snapshots larger than this are not read as text (diffed, or read by findings rules).
MAX_SNAPSHOT_BYTES = 1024 * 1024
# Kinds stored with their parsed form (artifact.parsed).
SNAPSHOT_KINDS = ("config", "sysctl")

log = logging.getLogger(__name__)


def clean_name(name: str) -> str:
    """A display name: printable, no path separators, bounded. It never reaches the filesystem."""
    name = "".join(ch for ch in name if ch.isprintable()).replace("/", "_").replace("\\", "_").strip()
    return name[:255] or "unnamed"


def store(
    session: Session, *, project_id: int, run_id: uuid.UUID | None, kind: str, name: str, data: bytes,
    role: str = "", content_type: str = "application/octet-stream", note: str = "",
    parsed: dict[str, Any] | None = None,
) -> Artifact:
    """``parsed``: a config or sysctl snapshot's parsed form when the caller has it (an import read the config
    already); otherwise a snapshot's is built here from ``data``."""
    if kind not in KINDS:
        raise BadInput(f"artifact kind must be one of {', '.join(KINDS)}")
    key, sha = get_storage().put(data)
    row = _add_row(session, project_id=project_id, run_id=run_id, kind=kind, name=name, role=role,
                   content_type=content_type, size=len(data), sha=sha, key=key, note=note)
    if kind in SNAPSHOT_KINDS:
        text = snapshot_text(data)
        if text is not None:  # a larger one is never read as text: no form either
            row.parsed = parsed if parsed is not None else configs.parsed_form(text, kind=kind)
    return row


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
               role: str = "", content_type: str = "application/octet-stream", head: bytes | None = None) -> Artifact:
    """``head``: the first bytes of the body as it streamed (see :class:`SnapshotHead`); a config or sysctl
    snapshot that fits in it gets its parsed form now, without reading the stored bytes back."""
    if kind not in KINDS:
        raise BadInput(f"artifact kind must be one of {', '.join(KINDS)}")
    row = _add_row(session, project_id=project_id, run_id=run_id, kind=kind, name=name, role=role,
                   content_type=content_type, size=stored.size, sha=stored.sha256, key=stored.key)
    if kind in SNAPSHOT_KINDS and head is not None and len(head) == stored.size:
        text = snapshot_text(head)
        if text is not None:
            row.parsed = configs.parsed_form(text, kind=kind)
    return row


class SnapshotHead:
    """Keeps a copy of the first MAX_SNAPSHOT_BYTES + 1 bytes of a streamed body: what a snapshot's parsed form
    is built from (a larger one is never read as text). Bounded, whatever the body's size."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = chunks
        self._head = bytearray()

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            room = MAX_SNAPSHOT_BYTES + 1 - len(self._head)
            if room > 0:
                self._head += chunk[:room]
            yield chunk

    @property
    def head(self) -> bytes:
        return bytes(self._head)


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
    return snapshot_text(data)


def snapshot_text(data: bytes) -> str | None:
    """A snapshot's bytes as the text comparisons read; None when binary or too large to be read."""
    if len(data) > MAX_SNAPSHOT_BYTES or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def snapshot_form(artifact: Artifact, text: str) -> dict[str, Any]:
    """The parsed form of a config or sysctl snapshot whose text is ``text`` (configs.parsed_form): the one stored
    with it; a snapshot stored before forms were (or by an older parse) gets its form built here, once, and
    kept by the caller's transaction, so later reads do not parse it again."""
    form = artifact.parsed
    if not configs.is_current(form):
        form = artifact.parsed = configs.parsed_form(text, kind=artifact.kind)
    assert form is not None
    return form


def list_for_run(session: Session, *, run_id: uuid.UUID, kind: str | None = None) -> list[Artifact]:
    stmt = select(Artifact).where(Artifact.run_id == run_id)
    if kind:
        stmt = stmt.where(Artifact.kind == kind)
    return list(session.scalars(stmt.order_by(Artifact.id)))
