from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from perflab.deps import OneHopRoute, ReadableProject, SessionDep
from perflab.trends import changepoints, service
from perflab.trends.schemas import TrendMetric, TrendReply

router = APIRouter(tags=["trends"], route_class=OneHopRoute)


@router.get("/api/projects/{slug}/trend/metrics", response_model=list[TrendMetric])
def trend_metrics(project: ReadableProject, db: SessionDep) -> list[TrendMetric]:
    """Every metric the project has values for, with the number of runs behind it."""
    return [TrendMetric(**m) for m in service.list_metrics(db, project=project)]


@router.get("/api/projects/{slug}/trend", response_model=TrendReply)
def trend(
    project: ReadableProject, db: SessionDep,
    metric: Annotated[str, Query(min_length=1, max_length=400, description="a key from /trend/metrics")],
    alpha: Annotated[float, Query(
        ge=changepoints.MIN_ALPHA, le=changepoints.MAX_ALPHA,
        description="change-point sensitivity: the false-alarm rate per history (0.005 to 0.2)")] = changepoints.ALPHA,
    include_archived: bool = False,
) -> TrendReply:
    """One metric across the project's experiments in time order, every run as a point, the median
    per experiment (invalid runs excluded), decisions and notes as markers, and change points."""
    return TrendReply.model_validate(service.trend(db, project=project, metric=metric, alpha=alpha,
                                                      include_archived=include_archived))
