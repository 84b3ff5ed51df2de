from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel

Status = Literal["planned", "running", "done", "archived"]


class ExperimentCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200)
    hypothesis: str = Field(default="", max_length=20000)
    tags: list[str] = Field(default_factory=list, max_length=50)
    status: Status = "planned"


class ExperimentUpdate(RequestModel):
    # The version the edit was made on (from the read); a stale one is refused with 409.
    version: int | None = Field(default=None, ge=1)
    name: str | None = Field(default=None, min_length=1, max_length=200)
    hypothesis: str | None = Field(default=None, max_length=20000)
    tags: list[str] | None = Field(default=None, max_length=50)
    status: Status | None = None


class ExperimentRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    version: int = 1

    id: int
    project_id: int
    name: str
    hypothesis: str
    tags: list[str]
    status: str
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None = None


class ExperimentHeadline(BaseModel):
    """Medians over the experiment's runs of the numbers a history page shows."""

    requests_per_sec: float | None = None
    latency_p99_ms: float | None = None
    latency_p50_ms: float | None = None
    errors: int = 0


class ExperimentListItem(ExperimentRead):
    run_count: int
    running_count: int
    # Runs left out of the headline medians: error responses, no requests, a cut load stream.
    invalid_runs: int = 0
    # Runs a user excluded from every statistic (kept, struck through with their reason).
    excluded_runs: int = 0
    last_run_at: datetime | None
    headline: ExperimentHeadline
    decision: dict[str, Any] | None = None


class ExperimentPage(BaseModel):
    items: list[ExperimentListItem]
    total: int
    page: int
    page_size: int
    tags: list[str]
