"""Wire schemas of the agent protocol (docs/protocol.md)."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, Field, model_validator

NAME = r"^[A-Za-z0-9_.:@/+-]{1,200}$"


class Hello(BaseModel):
    agent_id: str = Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9-]+$")
    hostname: str = Field(min_length=1, max_length=255)
    role: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    version: str = Field(default="", max_length=32)
    facts: dict[str, Any] = Field(default_factory=dict)
    capabilities: dict[str, Any] = Field(default_factory=dict)
    collectors: list[str] = Field(default_factory=list, max_length=100)


class HelloReply(BaseModel):
    host_id: int
    project: str
    server_time: float


class Heartbeat(BaseModel):
    agent_id: str = Field(min_length=8, max_length=64)
    spool_bytes: int = 0
    spool_batches: int = 0
    dropped_lines: int = 0
    rejected_batches: int = 0
    cpu_pct: float | None = None
    rss_kb: int | None = None
    clock_offset_s: float | None = None


class ServerTime(BaseModel):
    server_time: float


class PollRun(BaseModel):
    run_id: uuid.UUID
    experiment: str
    state: str
    wait_for_roles: list[str]


class PollReply(BaseModel):
    server_time: float
    runs: list[PollRun]


class RunCreate(BaseModel):
    run_id: uuid.UUID
    experiment: str = Field(min_length=1, max_length=200)
    label: str = Field(default="", max_length=200)
    load_command: str = Field(default="", max_length=10000)
    wait_for_roles: list[str] | None = None
    hypothesis: str = Field(default="", max_length=20000)
    project: str | None = Field(default=None, max_length=100)


class RunCreated(BaseModel):
    run_id: uuid.UUID
    project: str
    experiment: str
    status: str
    url: str


class RunHostState(BaseModel):
    agent_id: str
    hostname: str
    role: str
    state: str


class AgentRunStatus(BaseModel):
    run_id: uuid.UUID
    status: str
    status_reasons: list[str]
    hosts: list[RunHostState]
    wait_for_roles: list[str]
    missing_roles: list[str]


class Join(BaseModel):
    agent_id: str = Field(min_length=8, max_length=64)
    role: str = Field(min_length=1, max_length=64)
    streams: list[str] = Field(default_factory=list, max_length=100)
    failed: dict[str, str] = Field(default_factory=dict)


class Start(BaseModel):
    started_at: float | None = None


class Finish(BaseModel):
    exit_code: int | None = None
    ended_at: float | None = None


class Batch(BaseModel):
    run_id: uuid.UUID
    stream: str = Field(pattern=NAME)
    source: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9-]+$")
    role: str = Field(min_length=1, max_length=64)
    seq: int = Field(ge=1)
    # [wall_ts, mono_ts, text]
    lines: list[tuple[float, float, str]] = Field(default_factory=list, max_length=200_000)
    dropped: int = Field(default=0, ge=0)
    closed: bool = False
    error: str | None = Field(default=None, max_length=10000)
    # Set when the agent re-split a sealed batch after a 413: part `part` of `parts` of this seq.
    part: int | None = Field(default=None, ge=0)
    parts: int | None = Field(default=None, ge=1, le=4096)

    @model_validator(mode="after")
    def _part_in_range(self) -> Batch:
        if (self.part is None) != (self.parts is None):
            raise ValueError("part and parts go together")
        if self.part is not None and self.parts is not None and self.part >= self.parts:
            raise ValueError(f"part {self.part} is not below parts {self.parts}")
        return self


class BatchRequest(BaseModel):
    agent_id: str = Field(min_length=8, max_length=64)
    batches: list[Batch] = Field(max_length=1000)


class Ack(BaseModel):
    run_id: uuid.UUID
    stream: str
    seq: int
    duplicate: bool


class BatchReply(BaseModel):
    acked: list[Ack]


class ArtifactCreated(BaseModel):
    artifact_id: int
