"""Webhooks of a project, their deliveries (an outbox the delivery loop drains) and what they announced."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class Webhook(CreatedAt, Base):
    __tablename__ = "webhook"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(2000))
    format: Mapped[str] = mapped_column(String(16))  # json | slack
    events: Mapped[list[str]] = mapped_column(ARRAY(String(32)))
    # The change-point sensitivity this webhook follows (false alarms per history).
    alpha: Mapped[float] = mapped_column(Float)
    # Kept as is: signing needs it. Shown once, at creation; never listed.
    secret: Mapped[str] = mapped_column(String(64))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))


class WebhookDelivery(CreatedAt, Base):
    __tablename__ = "webhook_delivery"
    __table_args__ = (Index("ix_webhook_delivery_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhook.id", ondelete="CASCADE"), index=True)
    event: Mapped[str] = mapped_column(String(32))
    body: Mapped[str] = mapped_column(Text)  # the exact bytes sent and signed (UTF-8 JSON)
    status: Mapped[str] = mapped_column(String(16))  # pending | delivered | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    response_status: Mapped[int | None] = mapped_column(Integer)
    delivered_at: Mapped[datetime | None]


class WebhookSeen(Base):
    """What a webhook has announced (a change point, a finding of an experiment): each once."""

    __tablename__ = "webhook_seen"

    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhook.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(300), primary_key=True)
