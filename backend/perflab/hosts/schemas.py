from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict


class HostRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    agent_id: str
    hostname: str
    role: str
    agent_version: str
    facts: dict[str, Any]
    capabilities: dict[str, Any]
    collectors: list[Any]
    heartbeat: dict[str, Any]
    last_seen_at: datetime | None
    online: bool = False
