from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel


class TrashItem(BaseModel):
    """Something in a project's trash: restorable until `purge_at`."""

    kind: Literal["experiment", "run", "profile"]
    id: str
    name: str
    experiment_id: int
    experiment_name: str
    run_id: str | None
    deleted_at: datetime
    purge_at: datetime
