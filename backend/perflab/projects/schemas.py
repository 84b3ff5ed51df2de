from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel


class ProjectCreate(RequestModel):
    name: str = Field(min_length=1, max_length=200)
    slug: str | None = Field(default=None, min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str = Field(default="", max_length=10000)


class ProjectUpdate(RequestModel):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10000)


class ProjectRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    slug: str
    name: str
    description: str
    created_at: datetime


class ProjectListItem(ProjectRead):
    experiment_count: int
    run_count: int
    last_run_at: datetime | None
