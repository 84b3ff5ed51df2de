"""Series of a run and their samples, downsampled in SQL so charts never receive more than they draw."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from perflab.errors import BadInput
from perflab.runs.models import Run, Series

MAX_POINTS_LIMIT = 10_000


def list_series(session: Session, *, run_id: uuid.UUID) -> list[Series]:
    return list(session.scalars(select(Series).where(Series.run_id == run_id).order_by(Series.role, Series.key)))


def run_origin(run: Run) -> Any:
    return run.started_at or run.created_at


def series_data(
    session: Session, *, run: Run, series_ids: list[int], max_points: int = 2000
) -> list[dict[str, Any]]:
    if not 10 <= max_points <= MAX_POINTS_LIMIT:
        raise BadInput(f"max_points must be 10..{MAX_POINTS_LIMIT}")
    if not series_ids:
        return []
    if len(series_ids) > 200:
        raise BadInput("ask for at most 200 series at once")
    wanted = list(session.scalars(select(Series).where(Series.run_id == run.id, Series.id.in_(series_ids))))
    if not wanted:
        return []
    origin = run_origin(run)
    small = [s.id for s in wanted if s.points <= max_points]
    big = [s.id for s in wanted if s.points > max_points]
    rows: list[Any] = []
    if small:
        rows += session.execute(
            text(
                "SELECT series_id, extract(epoch FROM t - :origin), value FROM sample"
                " WHERE run_id = :run AND series_id = ANY(:ids) ORDER BY series_id, t"
            ),
            {"run": run.id, "ids": small, "origin": origin},
        ).all()
    if big:
        # Equal-width time buckets, averaged: at most max_points per series, computed where the data is.
        rows += session.execute(
            text(
                """
                WITH b AS (SELECT series_id, min(t) AS t0, max(t) AS t1 FROM sample
                           WHERE run_id = :run AND series_id = ANY(:ids) GROUP BY series_id)
                SELECT s.series_id, avg(extract(epoch FROM s.t - :origin)) AS t, avg(s.value)
                FROM sample s JOIN b USING (series_id)
                WHERE s.run_id = :run AND s.series_id = ANY(:ids)
                GROUP BY s.series_id,
                         floor(extract(epoch FROM s.t - b.t0) * (:maxp - 1)
                               / greatest(extract(epoch FROM b.t1 - b.t0), 1e-9))
                ORDER BY 1, 2
                """
            ),
            {"run": run.id, "ids": big, "maxp": max_points, "origin": origin},
        ).all()
    by_id: dict[int, dict[str, Any]] = {
        s.id: {"id": s.id, "key": s.key, "role": s.role, "source": s.source, "unit": s.unit, "t": [], "v": [],
               "downsampled": s.id in big}
        for s in wanted
    }
    for sid, t, v in rows:
        d = by_id[sid]
        d["t"].append(round(float(t), 3))
        d["v"].append(float(v))
    return list(by_id.values())
