"""A profile is a flame graph of one run (and role), kept as folded stacks plus its function table.

The folded stacks are the profile: gzip-compressed, in the unit stored beside them. Its call tree
is stored too, built once at upload (``tree_z``): the tree and diff views read it instead of
parsing the folded text again on every read. The original upload stays an artifact, only ever
served as a download. Both tables carry run_id (Citus distributes by run).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    PrimaryKeyConstraint,
    String,
    Text,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt


class Profile(CreatedAt, Base):
    __tablename__ = "profile"
    __table_args__ = (Index("ix_profile_project_id_created_at", "project_id", "created_at"),)

    # Server-generated: profile ids appear in URLs and links, so they are not sequential.
    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    run_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("run.id", ondelete="CASCADE"), index=True
    )
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    # The host role the profile was taken on (proxy, upstream, ...), "" when not said.
    role: Mapped[str] = mapped_column(String(64), default="")
    name: Mapped[str] = mapped_column(String(255))
    # folded | perf-script | svg | stap | dtrace
    format: Mapped[str] = mapped_column(String(16))
    # What a count is: samples, nanoseconds (perf cpu-clock periods), or what the uploader said.
    unit: Mapped[str] = mapped_column(String(32))
    event: Mapped[str | None] = mapped_column(String(200))
    total: Mapped[int] = mapped_column(BigInteger)
    # Distinct frame paths (nodes of the merged tree) and distinct stacks.
    frames: Mapped[int] = mapped_column(Integer)
    stacks: Mapped[int] = mapped_column(Integer)
    # True for SVG imports; tolerance: frames under this share of the total may be missing.
    lossy: Mapped[bool] = mapped_column(Boolean, default=False)
    tolerance: Mapped[float | None] = mapped_column(Double)
    warnings: Mapped[list[str]] = mapped_column(JSONB, default=list)
    # to_folded() output, gzip-compressed: "frame;frame;... count\n", sorted. Deferred like tree_z:
    # listing a run's profiles must not fetch every profile's stacks.
    folded_gz: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    # The call tree (parsers/profiles/calltree.py CallTree.encode()), stored with the profile: in
    # the same transaction as the row and its functions, removed by the same cascade, a few bytes
    # a node compressed. Null for profiles stored before it existed: built on first read, once.
    tree_z: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    # The upload as it came (an SVG keeps its script: download only, never rendered).
    artifact_id: Mapped[int | None] = mapped_column(ForeignKey("artifact.id", ondelete="SET NULL"))
    # In the trash since then (alone, or with its run at the same instant).
    deleted_at: Mapped[datetime | None]


class ProfileFunction(Base):
    """One function of a profile: self and total (a recursive function counted once per stack),
    in the profile's unit. ``rank`` orders by total, then self, descending."""

    __tablename__ = "profile_function"
    __table_args__ = (PrimaryKeyConstraint("profile_id", "rank"),)

    profile_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("profile.id", ondelete="CASCADE")
    )
    rank: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), ForeignKey("run.id", ondelete="CASCADE"))
    # Text, not indexed: C++ template names can be longer than a btree entry allows.
    name: Mapped[str] = mapped_column(Text)
    self_value: Mapped[int] = mapped_column(BigInteger)
    total_value: Mapped[int] = mapped_column(BigInteger)
