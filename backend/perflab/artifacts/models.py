"""Stored files: raw logs, config snapshots, uploaded flame graphs. Bytes live in storage, keyed by id."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class Artifact(CreatedAt, Base):
    __tablename__ = "artifact"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    run_id: Mapped[uuid.UUID | None] = mapped_column(
        UUID(as_uuid=True), ForeignKey("run.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(64), default="")
    # raw | config | sysctl | flamegraph | import | attachment | other
    kind: Mapped[str] = mapped_column(String(32))
    # Display name only: never used to build a path.
    name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(100), default="application/octet-stream")
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    sha256: Mapped[str] = mapped_column(String(64))
    # Server-generated storage key (a uuid4 hex): the only thing that reaches the filesystem.
    storage_key: Mapped[str] = mapped_column(String(64), unique=True)
    # An attachment's reason for being kept unread ("not recognised: ..."), shown beside its download.
    note: Mapped[str] = mapped_column(String(1000), default="", server_default="")
    # A config or sysctl snapshot's parsed form (compare.configs.parsed_form), stored with it so comparisons,
    # share views and findings do not parse the text on every read; None for other kinds, and until the first
    # read of a snapshot stored before forms were (which builds and keeps it).
    parsed: Mapped[dict[str, Any] | None] = mapped_column(JSONB, nullable=True)
