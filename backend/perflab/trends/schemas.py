from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel


class TrendMetric(BaseModel):
    key: str
    label: str
    unit: str
    # "wrk" (run headline), "series" (steady-state mean of telemetry), "syscalls" (strace -c)
    kind: str
    # Whether a larger value is better (requests/sec) or worse (latency, CPU); None when unknown.
    higher_is_better: bool | None
    runs: int


class TrendRun(BaseModel):
    run_id: uuid.UUID
    label: str
    at: datetime
    value: float
    # ok | flagged | invalid (from the run's headline; a run without one counts as ok)
    validity: str


class TrendMarker(BaseModel):
    kind: str  # decision | note
    id: int
    text: str
    status: str | None = None


class TrendExperiment(BaseModel):
    experiment: str
    experiment_id: int
    at: datetime
    # Median over the runs that are not invalid; None when every run is invalid.
    median: float | None
    n: int
    n_invalid: int
    min: float | None
    max: float | None
    runs: list[TrendRun]
    markers: list[TrendMarker]
    change_point: bool


class TrendChangePoint(BaseModel):
    experiment: str  # the first experiment after the change
    experiment_id: int
    previous_experiment: str
    previous_experiment_id: int
    index: int
    delta_pct: float | None
    before_median: float
    after_median: float
    p_value: float


class ChangePointMethod(BaseModel):
    name: str
    description: str
    # The false-alarm rate per history: the chance that a history which did not move shows a change point.
    alpha: float
    min_size: int  # experiments needed on each side of a step
    min_experiments: int


class TrendReply(BaseModel):
    metric: str
    label: str
    unit: str
    higher_is_better: bool | None
    experiments: list[TrendExperiment]
    change_points: list[TrendChangePoint]
    method: ChangePointMethod
    # changed | no_change (none of a size this history could see) | too_short (fewer than min_experiments)
    assessment: str
    # The smallest step (%) this history shows 4 times in 5 once 3 experiments follow it; None when too short.
    detectable_step_pct: float | None
    summary: str
