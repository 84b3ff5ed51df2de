"""Wire schemas of the agent protocol (docs/protocol.md)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from perflab.schemas_base import (
    BIGINT_MAX,
    SPAN_MAX_S,
    Count,
    FiniteFloat,
    RequestModel,
    Seconds,
    Timestamp,
    replace_nul_in_lines,
)

NAME = r"^[A-Za-z0-9_.:@/+-]{1,200}$"


class Hello(RequestModel):
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


class Heartbeat(RequestModel):
    agent_id: str = Field(min_length=8, max_length=64)
    spool_bytes: Count = 0
    spool_batches: Count = 0
    dropped_lines: Count = 0
    rejected_batches: Count = 0
    cpu_pct: FiniteFloat | None = None
    rss_kb: Count | None = None
    clock_offset_s: Seconds | None = None
    # Half the round trip of the exchange the offset comes from: how much of it may be latency.
    clock_error_s: Annotated[float, Field(ge=0, le=SPAN_MAX_S, allow_inf_nan=False)] | None = None


class ServerTime(BaseModel):
    server_time: float


class PollRun(BaseModel):
    run_id: uuid.UUID
    experiment: str
    state: str
    wait_for_roles: list[str]
    # How long the load lasts when its command says (wrk -d): daemons fit strace/perf windows inside it.
    load_seconds: float | None = None


class PollReply(BaseModel):
    server_time: float
    runs: list[PollRun]


class RunCreate(RequestModel):
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


class Join(RequestModel):
    agent_id: str = Field(min_length=8, max_length=64)
    role: str = Field(min_length=1, max_length=64)
    streams: list[str] = Field(default_factory=list, max_length=100)
    failed: dict[str, str] = Field(default_factory=dict)


class Start(RequestModel):
    started_at: Timestamp | None = None


class Finish(RequestModel):
    # run.exit_code is a 32-bit integer; exit statuses are 0..255 (negative: killed by a signal).
    exit_code: Annotated[int, Field(ge=-(2**31), le=2**31 - 1)] | None = None
    ended_at: Timestamp | None = None


class Batch(RequestModel):
    run_id: uuid.UUID
    stream: str = Field(pattern=NAME)
    source: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9-]+$")
    role: str = Field(min_length=1, max_length=64)
    # Checked by their element types (bounded timestamps, finite floats) and _nul_free_lines, not walked.
    typed_fields: ClassVar[frozenset[str]] = frozenset({"lines"})

    seq: Annotated[int, Field(ge=1, le=BIGINT_MAX)]
    # [wall_ts, mono_ts, text]
    lines: list[tuple[Timestamp, FiniteFloat, str]] = Field(default_factory=list, max_length=200_000)
    dropped: Count = 0
    # Lines of this seq the server refused before (422): the agent resends the seq empty, so the
    # stream goes on parsing past it and the run reports the loss.
    refused_lines: Count = 0
    closed: bool = False
    error: str | None = Field(default=None, max_length=10000)
    # Set when the agent re-split a sealed batch after a 413: part `part` of `parts` of this seq.
    part: int | None = Field(default=None, ge=0)
    parts: int | None = Field(default=None, ge=1, le=4096)

    @model_validator(mode="after")
    def _nul_free_lines(self) -> Batch:
        self.lines = replace_nul_in_lines(self.lines)
        return self

    @model_validator(mode="after")
    def _part_in_range(self) -> Batch:
        if (self.part is None) != (self.parts is None):
            raise ValueError("part and parts go together")
        if self.part is not None and self.parts is not None and self.part >= self.parts:
            raise ValueError(f"part {self.part} is not below parts {self.parts}")
        return self


class BatchRequest(RequestModel):
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
