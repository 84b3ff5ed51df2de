"""Column helpers shared by the domain models."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func
from sqlalchemy.orm import Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class CreatedAt:
    created_at: Mapped[datetime] = mapped_column(server_default=func.now(), default=utcnow)
