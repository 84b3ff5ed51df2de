from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class EvidenceRead(BaseModel):
    # syscall | series | log | sysctl | counter | listener | config | summary | process
    kind: str
    label: str
    value: str
    # Where the evidence is, for a link: {"syscall", "role"}, a series {"role", "source", "metric", "key"},
    # a log line {"summary": "dmesg", "line", "text"}, {"sysctl"}, {"summary", "field"}, {"file", "directive"}.
    ref: dict[str, Any] = Field(default_factory=dict)


class SuggestionRead(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    component: str
    knob: str
    from_: str = Field(alias="from")
    to: str


class FindingRead(BaseModel):
    rule: str
    severity: Literal["critical", "warning", "info"]
    experiment: str
    run_id: str
    title: str
    evidence: list[EvidenceRead]
    suggestion: SuggestionRead | None
    docs: str
    # In a comparison: in how many of the experiment's runs the rule fired.
    runs: int | None = None
    of_runs: int | None = None


class RunFindings(BaseModel):
    run_id: uuid.UUID
    rules: int
    findings: list[FindingRead]


class ExperimentFindings(BaseModel):
    experiment: str
    findings: list[FindingRead]
    # Rules that fire here but not in the baseline, and the reverse: the story of the experiment.
    appeared: list[str] = Field(default_factory=list)
    disappeared: list[str] = Field(default_factory=list)


class UseCheck(BaseModel):
    """One cell of the USE method: a resource's utilisation, saturation or errors in this run."""

    resource: str
    type: Literal["utilisation", "saturation", "errors"]
    # finding: a rule fired here; silent: checked, nothing found; missing: no data (see hint); n/a
    status: Literal["finding", "silent", "missing", "n/a"]
    # What the run's data says, e.g. "us 42.0, sy 38.1 (vmstat steady-state mean)".
    value: str | None
    # The rules that read this cell, and those that fired in this run.
    rules: list[str]
    fired: list[str]
    # For a missing check: the collector or file that would let it run ("add `--collect nstat` ...").
    hint: str | None


class RunUseChecklist(BaseModel):
    run_id: uuid.UUID
    resources: list[str]
    checks: list[UseCheck]
