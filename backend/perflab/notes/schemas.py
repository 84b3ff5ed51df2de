from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel

# Markdown is stored and returned exactly as written; the UI renders it sanitised.
BODY_MAX = 100_000


class NoteCreate(RequestModel):
    body_md: str = Field(min_length=1, max_length=BODY_MAX)
    experiment_id: int | None = None
    run_id: uuid.UUID | None = None
    # Seconds from the run's start: a time-range note drawn on the run's charts and overlays.
    t_start_s: float | None = Field(default=None, ge=0)
    t_end_s: float | None = Field(default=None, ge=0)


class NoteUpdate(RequestModel):
    # The version the edit was made on (from the read); a stale one is refused with 409.
    version: int | None = Field(default=None, ge=1)
    body_md: str | None = Field(default=None, min_length=1, max_length=BODY_MAX)
    t_start_s: float | None = Field(default=None, ge=0)
    t_end_s: float | None = Field(default=None, ge=0)


class NoteRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    version: int = 1

    id: int
    project_id: int
    experiment_id: int | None
    run_id: uuid.UUID | None
    t_start_s: float | None
    t_end_s: float | None
    body_md: str
    author_id: int | None
    author_email: str | None = None
    created_at: datetime
    updated_at: datetime
