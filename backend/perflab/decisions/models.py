"""Tuning decisions: what was changed on which component, to what, and whether it was adopted."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, func
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt, utcnow
from perflab.versioning import Versioned


class Decision(CreatedAt, Versioned, Base):
    __tablename__ = "decision"
    # The history page asks for the latest decision of each experiment.
    __table_args__ = (Index("ix_decision_experiment_id_updated_at", "experiment_id", "updated_at"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    experiment_id: Mapped[int] = mapped_column(ForeignKey("experiment.id", ondelete="CASCADE"))
    component: Mapped[str] = mapped_column(String(200), default="")
    knob: Mapped[str] = mapped_column(String(400))
    before: Mapped[str] = mapped_column(Text, default="")
    after: Mapped[str] = mapped_column(Text, default="")
    # proposed | adopted | rejected | inconclusive
    status: Mapped[str] = mapped_column(String(16), default="proposed")
    rationale: Mapped[str] = mapped_column(Text, default="")
    comparison_id: Mapped[int | None] = mapped_column(ForeignKey("comparison.id", ondelete="SET NULL"))
    author_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow, onupdate=utcnow)
