"""An experiment is one configuration tried within a project."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String, Text, UniqueConstraint, func
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column, validates

from perflab import security
from perflab.db import Base
from perflab.models_base import CreatedAt, utcnow
from perflab.versioning import Versioned


class Experiment(CreatedAt, Versioned, Base):
    __tablename__ = "experiment"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    hypothesis: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    # Names it had before a rename: links pasted with an old name (?e=seed001-b) still find it.
    former_names: Mapped[list[str]] = mapped_column(ARRAY(String(200)), default=list, server_default="{}")
    # planned | running | done | archived
    status: Mapped[str] = mapped_column(String(16), default="planned")
    # In the trash since then, with its runs (deleted at the same instant, restored together).
    deleted_at: Mapped[datetime | None]
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow, onupdate=utcnow)

    @validates("hypothesis")
    def _redact(self, _key: str, value: str) -> str:
        # `perflab-agent run --hypothesis` is free text typed next to a token; never store one.
        return security.redact_tokens(value) if value else value
