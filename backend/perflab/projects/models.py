"""A project is one investigation or system under study."""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, String, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class Project(CreatedAt, Base):
    __tablename__ = "project"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    slug: Mapped[str] = mapped_column(String(100), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    # When a run's numbers are invalid (perflab.compare.validity.Thresholds); {} means the defaults.
    validity: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict, server_default="{}")
