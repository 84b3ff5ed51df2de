from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from perflab.schemas_base import RequestModel


class RunHostRead(BaseModel):
    host_id: int
    hostname: str
    role: str
    state: str
    agent_id: str


class StreamRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    host: str | None = None
    role: str
    source: str
    name: str
    lines: int
    samples: int
    dropped: int
    state: str
    error: str | None
    closed_at: datetime | None


class SummaryRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    kind: str
    role: str
    data: dict[str, Any]
    warnings: list[str]


class RunRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    project_id: int
    experiment_id: int
    label: str
    status: str
    status_reasons: list[str]
    source: str
    started_at: datetime | None
    ended_at: datetime | None
    load_command: str
    exit_code: int | None
    created_at: datetime
    headline: dict[str, Any]
    # Left out of every statistic by a user, shown struck through with the reason.
    excluded: bool = False
    excluded_reason: str = ""
    deleted_at: datetime | None = None


class RunUpdate(RequestModel):
    """Exclude a run from statistics (or include it again), or rename the roles of its hosts."""

    excluded: bool | None = None
    excluded_reason: str | None = Field(default=None, max_length=500)
    # {"old role": "new role"}: e.g. an import's "target" becomes the agent's "proxy".
    roles: dict[str, str] | None = Field(default=None, max_length=20)


class ParseLag(BaseModel):
    """What the parse workers have not reached yet: raw chunks received but not parsed, and the age of
    the oldest of them. Both 0 when parsing is in the request (the default) or has caught up."""

    chunks: int
    seconds: float


class RunDetail(RunRead):
    project_slug: str
    experiment_name: str
    hosts: list[RunHostRead]
    streams: list[StreamRead]
    summaries: list[SummaryRead]
    parse_lag: ParseLag


class RunListItem(RunRead):
    experiment_name: str


class RunPage(BaseModel):
    items: list[RunListItem]
    total: int
    page: int
    page_size: int


class TailLine(BaseModel):
    t: float
    text: str


class StreamTail(BaseModel):
    stream_id: int
    name: str
    total_lines: int
    lines: list[TailLine]
