"""A user's role in one project: owner, member or viewer (admins see every project without a row)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, PrimaryKeyConstraint, String
from sqlalchemy.orm import Mapped, mapped_column

from perflab.db import Base
from perflab.models_base import CreatedAt

ROLES = ("owner", "member", "viewer")


class ProjectMember(CreatedAt, Base):
    __tablename__ = "project_member"
    # The primary key serves "members of a project"; the index serves "my projects" on every request.
    __table_args__ = (
        PrimaryKeyConstraint("project_id", "user_id"),
        Index("ix_project_member_user_id", "user_id"),
    )

    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"))
    # owner | member | viewer
    role: Mapped[str] = mapped_column(String(16))
