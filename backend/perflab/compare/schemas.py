"""The compare reply: the CLI contract (baseline, experiments, metrics) plus the sections the UI draws."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from perflab.findings.schemas import ExperimentFindings
from perflab.schemas_base import RequestModel

Direction = Literal["higher_is_better", "lower_is_better", "neutral"]
# better/worse (or increased/decreased for neutral metrics) only when decided at the stated level;
# equivalent when the change is provably inside the smallest meaningful change; not_decided otherwise,
# with why and what would decide it (perflab.stats).
Verdict = Literal["better", "worse", "equivalent", "not_decided", "increased", "decreased", "no_data", "invalid"]
RunValidity = Literal["ok", "flagged", "invalid"]


Family = Literal["throughput", "latency", "errors", "telemetry", "syscalls"]


class VerdictSettingsRead(BaseModel):
    """The smallest meaningful change per metric family (percent): a change provably inside it is "equivalent"."""

    margins_pct: dict[Family, float]
    defaults_pct: dict[Family, float]


class VerdictSettingsUpdate(RequestModel):
    """Families to change (percent, above 0 and at most 50), or null to go back to the default."""

    margins_pct: dict[Family, Annotated[float, Field(gt=0, le=50)] | None]


class MetricVerdict(BaseModel):
    """One entry of the `perflab-agent compare --format json` contract (issue 5). Keys are experiment names."""

    key: str
    direction: Direction
    values: dict[str, float | None]
    runs: dict[str, int]
    delta_pct: dict[str, float | None]
    verdict: dict[str, Verdict]
    # Why a verdict is not decided, the smallest change these run counts detect here (percent), and about how
    # many more runs a side would decide a change of the observed size (per experiment, None where n/a).
    undecided_reason: dict[str, str | None] = Field(default_factory=dict)
    detectable_pct: dict[str, float | None] = Field(default_factory=dict)
    runs_needed: dict[str, int | None] = Field(default_factory=dict)


class StatsMethod(BaseModel):
    name: str
    # The interval's level (1 - alpha) and the false-positive rate of better/worse in an A/A pair.
    confidence: float
    alpha: float
    # Power behind detectable_pct and runs_needed.
    power: float
    detail: str
    # The smallest meaningful change per metric family (percent) behind "equivalent", as this project set it.
    margins_pct: dict[str, float] = Field(default_factory=dict)


class RunWarning(BaseModel):
    # non_2xx | socket_errors | partial | failed | steal | loadgen_saturated | no_load_result | parse
    kind: str
    message: str


class RunInfo(BaseModel):
    id: str
    label: str
    status: str
    status_reasons: list[str]
    created_at: datetime
    started_at: datetime | None
    warnings: list[RunWarning]
    # ok | flagged (warnings) | invalid (left out of medians and verdicts unless included on purpose).
    validity: RunValidity = "ok"
    invalid_reasons: list[str] = Field(default_factory=list)
    # Whether this run's numbers are in the medians and verdicts.
    included: bool = True
    # Flame graphs taken during this run, so the page can link to a profile diff.
    profile_ids: list[str] = []


class ExperimentColumn(BaseModel):
    id: int
    name: str
    is_baseline: bool
    runs: list[RunInfo]


class Cell(BaseModel):
    """One experiment's value of one metric: the median over its runs, the spread, and the change."""

    # Runs behind the median (valid ones, or all when invalid runs are included on purpose).
    n: int
    # Invalid runs of this experiment left out of this value.
    invalid_runs: int = 0
    median: float | None
    min: float | None
    max: float | None
    # One value per run, in the column's run order (None where a run lacks it).
    values: list[float | None]
    # A/A: the relative change this experiment's runs cannot tell from noise (percent).
    noise_floor_pct: float | None = None
    delta: float | None = None
    delta_pct: float | None = None
    ci_low_pct: float | None = None
    ci_high_pct: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    verdict: Verdict
    # Why not decided (plain words), the smallest change these run counts detect here (percent, from the
    # observed noise), about how many more runs a side would decide a change of the observed size.
    undecided_reason: str | None = None
    detectable_pct: float | None = None
    runs_needed: int | None = None
    # The smallest meaningful change (percent) that "equivalent" is judged against.
    margin_pct: float | None = None
    # Indexes into `values` of runs far from their siblings, and whether the runs fall in two separate groups.
    outliers: list[int] = Field(default_factory=list)
    two_mode: bool = False
    # Validity warnings of the runs behind this value: shown on the cell, never averaged away silently.
    flags: list[str] = Field(default_factory=list)


class ResultRow(BaseModel):
    key: str
    label: str
    unit: str
    direction: Direction
    cells: dict[str, Cell]


class Validity(BaseModel):
    summary: list[str]
    flagged_runs: int
    # Invalid runs in the selection, and whether they were counted anyway.
    invalid_runs: int = 0
    include_invalid: bool = False


class TelemetryRow(BaseModel):
    key: str
    role: str
    source: str
    metric: str
    label: str
    unit: str
    direction: Direction
    cells: dict[str, Cell]


class RoleTelemetry(BaseModel):
    role: str
    hosts: list[str]
    rows: list[TelemetryRow]


class SyscallCell(BaseModel):
    """One syscall (or the table's total) of one experiment: medians over the runs that traced the process.

    Runs that served more requests make more calls, so the figures compared are per request: each run's
    calls (and time) divided by the requests its traced process read in the strace window
    (`perflab.findings.rules.base.strace_requests`, its recvfrom calls). The verdicts are made on those;
    the raw counts of the window stay beside them."""

    n: int
    # Raw medians of the strace window (secondary figures).
    calls: float | None
    seconds: float | None
    usecs_per_call: float | None
    errors: float | None
    # Requests read in the window (median over the runs that know them) and how many runs know them.
    requests: float | None = None
    n_per_request: int = 0
    # Why some or all runs give no per-request figure, e.g. "requests unknown in 1 of 3 runs: ...".
    per_request_note: str | None = None
    calls_per_request: float | None = None
    usecs_per_request: float | None = None
    calls_per_request_delta_pct: float | None = None
    calls_per_request_verdict: Verdict = "no_data"
    calls_per_request_undecided_reason: str | None = None
    calls_per_request_detectable_pct: float | None = None
    calls_per_request_runs_needed: int | None = None
    usecs_per_request_delta_pct: float | None = None
    usecs_per_request_verdict: Verdict = "no_data"
    usecs_per_request_undecided_reason: str | None = None
    usecs_per_request_detectable_pct: float | None = None
    usecs_per_request_runs_needed: int | None = None


class SyscallRow(BaseModel):
    syscall: str
    cells: dict[str, SyscallCell]
    # Largest change of its share of calls + share of time against the baseline, over experiments.
    change_score: float
    # e.g. "readv 5.48 -> 26.1 calls/req (31776 -> 150481 calls)", per non-baseline experiment.
    summary: dict[str, str]


class SyscallTable(BaseModel):
    role: str
    process: str
    totals: dict[str, SyscallCell]
    rows: list[SyscallRow]


class FileDiff(BaseModel):
    kind: Literal["config", "sysctl", "host_facts"]
    name: str
    role: str
    status: Literal["same", "changed", "added", "removed", "binary"]
    diff: str
    truncated: bool = False


class KnobChange(BaseModel):
    component: str
    knob: str
    context: str
    before: str
    after: str
    file: str


class ChangeSet(BaseModel):
    experiment: str
    baseline: str
    run_id: str | None
    baseline_run_id: str | None
    files: list[FileDiff]
    knob_changes: list[KnobChange]


class Mover(BaseModel):
    section: Literal["results", "telemetry", "syscalls", "netqtop"]
    key: str
    label: str
    role: str | None
    experiment: str
    baseline_value: float | None
    value: float | None
    delta_pct: float | None
    verdict: Verdict
    significant: bool
    text: str
    # What baseline_value and value are in: "calls/req" for syscalls; the row's unit otherwise.
    unit: str = ""


class NoteRef(BaseModel):
    id: int
    experiment: str | None
    run_id: str | None
    t_start_s: float | None
    t_end_s: float | None
    body_md: str
    created_at: datetime


class OverlayMetric(BaseModel):
    role: str
    key: str
    label: str
    unit: str


class NoiseRow(BaseModel):
    section: Literal["results", "telemetry"]
    role: str | None
    key: str
    label: str
    unit: str
    # Runs of the experiment behind this metric, their median, and the run-to-run spread (percent).
    n: int
    median: float
    spread_pct: float | None
    # The smallest change n vs n runs of this setup detect (80% power, alpha 0.05), and with other run counts.
    detectable_pct: float | None
    detectable_by_runs: dict[int, float | None]


class SetupNoise(BaseModel):
    """From the repeated runs of one experiment: "this setup detects changes of X% or more with n runs"."""

    experiment: str
    runs: int
    rows: list[NoiseRow]


class CompareReply(BaseModel):
    # The CLI contract, first.
    baseline: str
    experiments: list[str]
    metrics: list[MetricVerdict]
    # What the UI draws.
    project: str
    method: StatsMethod
    columns: list[ExperimentColumn]
    results: list[ResultRow]
    validity: Validity
    telemetry: list[RoleTelemetry]
    syscalls: list[SyscallTable]
    netqtop: list[TelemetryRow]
    changes: list[ChangeSet]
    top_movers: list[Mover]
    notes: list[NoteRef]
    overlay_metrics: list[OverlayMetric]
    comparison: dict[str, Any] | None = None
    # Per experiment (baseline first): what the findings rules read, and what appeared or disappeared
    # against the baseline (perflab.findings).
    findings: list[ExperimentFindings] = Field(default_factory=list)
    # The noise of the baseline's setup, per metric (and host role for telemetry).
    noise: SetupNoise | None = None


class OverlayLine(BaseModel):
    host: str | None
    stream_id: int
    t: list[float]
    v: list[float]
    downsampled: bool


class OverlayRun(BaseModel):
    run_id: str
    label: str
    started_at: datetime | None
    lines: list[OverlayLine]


class OverlayExperiment(BaseModel):
    experiment: str
    is_baseline: bool
    runs: list[OverlayRun]


class OverlayReply(BaseModel):
    role: str
    metric: str
    label: str
    unit: str
    max_points: int
    t_start_s: float | None
    t_end_s: float | None
    experiments: list[OverlayExperiment]
    notes: list[NoteRef]
