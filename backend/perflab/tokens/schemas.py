from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel

Scope = Literal["ingest", "read"]


def _all_scopes() -> list[Scope]:
    return ["ingest", "read"]


class TokenCreate(RequestModel):
    name: str = Field(default="agent", min_length=1, max_length=200)
    scopes: list[Scope] = Field(default_factory=_all_scopes, min_length=1)


class TokenRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    hint: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


class TokenCreated(TokenRead):
    # The only time the token is ever shown.
    token: str
