from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from perflab.compare.schemas import CompareReply
from perflab.schemas_base import RequestModel

UI_STATE_MAX_BYTES = 8192


class OverlayRef(RequestModel):
    model_config = ConfigDict(extra="forbid")

    role: str = Field(min_length=1, max_length=64)
    metric: str = Field(min_length=1, max_length=300)


class TimeRange(RequestModel):
    model_config = ConfigDict(extra="forbid")

    start_s: float = Field(ge=0)
    end_s: float = Field(gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> TimeRange:
        if self.end_s <= self.start_s:
            raise ValueError("end_s must be after start_s")
        return self


class ViewState(RequestModel):
    """What the page showed when saved. Overlays and the time range also bound what a share link may read."""

    model_config = ConfigDict(extra="forbid")

    overlays: list[OverlayRef] = Field(default_factory=list, max_length=50)
    time_range: TimeRange | None = None
    metrics: list[str] = Field(default_factory=list, max_length=100)
    sections: list[str] = Field(default_factory=list, max_length=20)
    # Invalid runs counted in medians and verdicts on purpose (the compare page's toggle).
    include_invalid: bool = False
    # UI-owned extras (sort order, expanded rows); opaque to the server, bounded.
    ui: dict[str, Any] = Field(default_factory=dict)

    @field_validator("ui")
    @classmethod
    def _bounded(cls, v: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(v)) > UI_STATE_MAX_BYTES:
            raise ValueError(f"ui state is larger than {UI_STATE_MAX_BYTES} bytes")
        return v


class ComparisonCreate(RequestModel):
    baseline: str = Field(min_length=1, max_length=200)
    experiments: list[str] = Field(min_length=1, max_length=12)
    title: str = Field(default="", max_length=200)
    view_state: ViewState = Field(default_factory=ViewState)


class ComparisonRead(BaseModel):
    id: int
    short_id: str
    url: str
    project: str
    title: str
    baseline: str
    experiments: list[str]
    run_ids: list[uuid.UUID]
    view_state: ViewState
    created_at: datetime
    created_by: str | None


class SavedComparison(BaseModel):
    comparison: ComparisonRead
    compare: CompareReply


class ShareLinkCreate(RequestModel):
    expires_in_days: int = Field(default=90, ge=1, le=365)
    note: str = Field(default="", max_length=200)


class ShareLinkRead(BaseModel):
    id: int
    comparison_id: int
    comparison_short_id: str
    comparison_title: str
    hint: str
    note: str
    status: Literal["active", "revoked", "expired"]
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None
    created_by: str | None
    # Whether the caller may revoke it: its creator, an owner of the project or an admin.
    can_revoke: bool = False


class ShareLinkCreated(ShareLinkRead):
    # Shown once: only its sha256 is stored.
    token: str
    url: str


class SharedComparison(BaseModel):
    """What a share link opens: the frozen comparison, read-only."""

    title: str
    baseline: str
    experiments: list[str]
    view_state: ViewState
    created_at: datetime
    expires_at: datetime


class ShareView(BaseModel):
    comparison: SharedComparison
    compare: CompareReply
