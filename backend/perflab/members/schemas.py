from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from perflab.schemas_base import RequestModel

Role = Literal["owner", "member", "viewer"]


class MemberAdd(RequestModel):
    email: str = Field(min_length=3, max_length=320)
    role: Role = "member"


class MemberUpdate(RequestModel):
    role: Role


class MemberRead(BaseModel):
    user_id: int
    email: str
    role: Role
    created_at: datetime


class MembersReply(BaseModel):
    # Admins have no membership row; they act as owners ("admin" tells the UI why).
    my_role: Literal["owner", "member", "viewer", "admin"] | None
    members: list[MemberRead]
