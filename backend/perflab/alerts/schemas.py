from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from perflab.schemas_base import RequestModel
from perflab.trends import changepoints

EVENTS = ("change_point", "gate_failed", "finding")
Event = Literal["change_point", "gate_failed", "finding"]


class WebhookCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200)
    url: str = Field(min_length=1, max_length=2000, description="http(s) URL chosen by a project owner")
    format: Literal["json", "slack"] = "json"
    events: list[Event] = Field(min_length=1, max_length=3)
    alpha: float = Field(changepoints.ALPHA, ge=changepoints.MIN_ALPHA, le=changepoints.MAX_ALPHA,
                         description="the change-point sensitivity to follow (false alarms per history)")

    @field_validator("events")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        return sorted(set(v), key=EVENTS.index)


class DeliveryRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    event: str
    status: str  # pending | delivered | failed
    attempts: int
    last_error: str | None
    response_status: int | None
    created_at: datetime
    delivered_at: datetime | None


class WebhookRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    url: str
    format: str
    events: list[str]
    alpha: float
    created_at: datetime
    last_delivery: DeliveryRead | None = None


class WebhookCreated(WebhookRead):
    # The HMAC-SHA256 key of the X-Perflab-Signature header: shown this once.
    secret: str


class GateFailed(RequestModel):
    """What a CI gate reports when it failed the build (perflab-agent compare --fail-on ...)."""

    baseline: str = Field(min_length=1, max_length=200)
    experiments: list[str] = Field(min_length=1, max_length=50)
    failures: list[str] = Field(min_length=1, max_length=50, description="one line per failing metric")
    exit_code: int = Field(ge=1, le=255)

    @field_validator("experiments", "failures")
    @classmethod
    def _short(cls, v: list[str]) -> list[str]:
        if any(len(s) > 500 for s in v):
            raise ValueError("each entry is at most 500 characters")
        return v


class GateAccepted(BaseModel):
    deliveries: int
