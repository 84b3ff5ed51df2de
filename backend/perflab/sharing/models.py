"""Saved comparisons (immutable snapshots) and the revocable, expiring share links that open them."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class Comparison(CreatedAt, Base):
    __tablename__ = "comparison"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    # Random and URL-safe: the member link /c/<short_id>. Not a secret (members only), just unguessable.
    short_id: Mapped[str] = mapped_column(String(16), unique=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    baseline_experiment_id: Mapped[int] = mapped_column(ForeignKey("experiment.id", ondelete="CASCADE"))
    # Baseline first, in the order the user chose.
    experiment_ids: Mapped[list[int]] = mapped_column(ARRAY(BigInteger))
    # Resolved when saved, so runs added later never change what the link shows.
    run_ids: Mapped[list[uuid.UUID]] = mapped_column(ARRAY(UUID(as_uuid=True)))
    # The experiments' names when saved, in experiment_ids' order: a rename later does not show on the
    # link. NULL for comparisons saved before names were kept (they show the current names).
    experiment_names: Mapped[list[str] | None] = mapped_column(ARRAY(String(200)))
    view_state: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))


class ShareLink(CreatedAt, Base):
    __tablename__ = "share_link"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    comparison_id: Mapped[int] = mapped_column(ForeignKey("comparison.id", ondelete="CASCADE"), index=True)
    # sha256 of the token; the token itself is shown once and never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    note: Mapped[str] = mapped_column(Text, default="")
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    # The project's verdict margins ({family: fraction}) when the link was made: an owner editing them
    # later must not turn a shared "equivalent" into something else. NULL for links made before they were
    # kept (those read the project's margins).
    margins: Mapped[dict[str, float] | None] = mapped_column(JSONB)
