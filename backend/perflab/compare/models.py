"""Per-project settings of the verdicts: the smallest meaningful change per metric family."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base


class VerdictSettings(Base):
    __tablename__ = "verdict_settings"

    project_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("project.id", ondelete="CASCADE"),
                                            primary_key=True)
    # {family: fraction}, only the families the owners changed; the rest keep perflab.stats.MARGINS.
    margins: Mapped[dict[str, float]] = mapped_column(JSONB, default=dict, server_default="{}")
