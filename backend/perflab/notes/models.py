"""Markdown notes on a project, an experiment, a run, or a time range of a run."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import BigInteger, Double, ForeignKey, Text, func
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt, utcnow
from perflab.versioning import Versioned


class Note(CreatedAt, Versioned, Base):
    __tablename__ = "note"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    experiment_id: Mapped[int | None] = mapped_column(ForeignKey("experiment.id", ondelete="CASCADE"), index=True)
    run_id: Mapped[uuid.UUID | None] = mapped_column(
        UUID(as_uuid=True), ForeignKey("run.id", ondelete="CASCADE"), index=True
    )
    # Seconds from run start, for time-range notes drawn on charts.
    t_start_s: Mapped[float | None] = mapped_column(Double)
    t_end_s: Mapped[float | None] = mapped_column(Double)
    body_md: Mapped[str] = mapped_column(Text)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow, onupdate=utcnow)
