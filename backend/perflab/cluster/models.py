"""Failure counts of the rate limits (perflab/ratelimit.py), shared by every server process."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base


class RateLimitMiss(Base):
    __tablename__ = "rate_limit_miss"

    limiter: Mapped[str] = mapped_column(String(64), primary_key=True)
    # sha256 hex of the key (an address, an e-mail address): attacker-chosen, so a fixed size.
    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The latest misses within the window, newest first, at most the limiter's max_misses.
    misses: Mapped[list[datetime]] = mapped_column(ARRAY(DateTime(timezone=True)))
    # When the last miss leaves the window: the sweep deletes rows past it.
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
