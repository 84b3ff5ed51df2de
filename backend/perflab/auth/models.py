"""Local accounts and their cookie sessions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class User(CreatedAt, Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str]
    role: Mapped[str] = mapped_column(String(16), default="member")  # admin | member
    is_active: Mapped[bool] = mapped_column(default=True)
    password_changed_at: Mapped[datetime | None]


class UserSession(CreatedAt, Base):
    __tablename__ = "user_session"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    # sha256 of the cookie value; the cookie itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    expires_at: Mapped[datetime]
    last_seen_at: Mapped[datetime | None]


class KnownDevice(CreatedAt, Base):
    """A browser that logged in to an account before: it skips the per-account login limit.

    One random cookie per browser (only its sha256 is kept), replaced at every login from it, forgotten
    when the password changes or the user forgets their devices.
    """

    __tablename__ = "known_device"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
