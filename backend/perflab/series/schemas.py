from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class SeriesRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    role: str
    source: str
    metric: str
    key: str
    labels: dict[str, Any]
    unit: str
    points: int
    stats: dict[str, Any]


class SeriesData(BaseModel):
    id: int
    key: str
    role: str
    source: str
    unit: str
    # Seconds from the run's start, and the (bucket-averaged when downsampled) values.
    t: list[float]
    v: list[float]
    downsampled: bool


class SeriesDataReply(BaseModel):
    run_id: str
    started_at: str | None
    series: list[SeriesData]
