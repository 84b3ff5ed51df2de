from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from perflab.schemas_base import RequestModel


class ProjectCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200)
    slug: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str = Field(default="", max_length=10000)


class ValidityThresholds(RequestModel):
    """At or above these shares of requests, a run is invalid: out of medians and verdicts."""

    model_config = ConfigDict(from_attributes=True, extra="forbid")

    error_responses_pct: float = Field(default=1.0, ge=0, le=100, allow_inf_nan=False,
                                       description="non-2xx/3xx responses, percent of requests")
    socket_errors_pct: float = Field(default=1.0, ge=0, le=100, allow_inf_nan=False,
                                     description="socket errors (connect, read, write, timeout), percent of requests")


class ProjectUpdate(RequestModel):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10000)
    validity: ValidityThresholds | None = None


class ProjectRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    slug: str
    name: str
    description: str
    created_at: datetime
    validity: ValidityThresholds = Field(default_factory=ValidityThresholds)

    @field_validator("validity", mode="before")
    @classmethod
    def _defaults(cls, v: object) -> object:
        return v or {}


class ProjectListItem(ProjectRead):
    experiment_count: int
    run_count: int
    last_run_at: datetime | None
