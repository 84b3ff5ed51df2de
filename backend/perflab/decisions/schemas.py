from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel

DecisionStatus = Literal["proposed", "adopted", "rejected", "inconclusive"]


class DecisionCreate(RequestModel):
    experiment_id: int
    component: str = Field(default="", max_length=200)
    knob: str = Field(min_length=1, max_length=400)
    before: str = Field(default="", max_length=10000)
    after: str = Field(default="", max_length=10000)
    status: DecisionStatus = "proposed"
    rationale: str = Field(default="", max_length=50000)
    # The saved comparison that justifies it (its id, or its short id).
    comparison_id: int | None = None
    comparison_short_id: str | None = Field(default=None, max_length=16)


class DecisionUpdate(RequestModel):
    # The version the edit was made on (from the read); a stale one is refused with 409.
    version: int | None = Field(default=None, ge=1)
    component: str | None = Field(default=None, max_length=200)
    knob: str | None = Field(default=None, min_length=1, max_length=400)
    before: str | None = Field(default=None, max_length=10000)
    after: str | None = Field(default=None, max_length=10000)
    status: DecisionStatus | None = None
    rationale: str | None = Field(default=None, max_length=50000)
    comparison_id: int | None = None
    comparison_short_id: str | None = Field(default=None, max_length=16)


class DecisionRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    version: int = 1

    id: int
    project_id: int
    experiment_id: int
    experiment_name: str = ""
    component: str
    knob: str
    before: str
    after: str
    status: str
    rationale: str
    comparison_id: int | None
    comparison_short_id: str | None = None
    author_id: int | None
    author_email: str | None = None
    created_at: datetime
    updated_at: datetime


class DecisionDraft(BaseModel):
    """A decision pre-filled from the config diff between a baseline and the experiment."""

    experiment_id: int
    baseline: str
    component: str
    knob: str
    context: str
    before: str
    after: str
    file: str
    comparison_id: int | None
