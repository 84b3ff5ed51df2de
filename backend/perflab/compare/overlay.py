"""Overlays: one metric of one role for every compared run, aligned to run start and downsampled in SQL."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from perflab.compare.loading import PIDSTAT_ROWS, VMSTAT_ROWS, load
from perflab.compare.notes import notes_for
from perflab.compare.schemas import OverlayExperiment, OverlayLine, OverlayReply, OverlayRun
from perflab.compare.selection import Selection, run_label
from perflab.errors import BadInput
from perflab.hosts.models import Host
from perflab.runs.models import Stream
from perflab.series.service import MAX_POINTS_LIMIT, run_origin

_KEY = re.compile(r"^(vmstat|pidstat|netqtop)\.([A-Za-z0-9_.]+?)(?:\[(.{1,200})\])?$")


@dataclass(frozen=True)
class MetricKey:
    source: str
    metric: str
    label: str | None

    @property
    def key(self) -> str:
        return f"{self.source}.{self.metric}" + (f"[{self.label}]" if self.label is not None else "")


def parse_metric_key(key: str) -> MetricKey:
    m = _KEY.match(key)
    if m is None:
        raise BadInput(f"metric {key!r} is not like 'vmstat.sy', 'pidstat.cpu_pct[nginx]' or 'netqtop.tx.bps[0]'")
    source, metric, label = m.group(1), m.group(2), m.group(3)
    if source == "vmstat" and label is not None:
        raise BadInput("vmstat metrics take no [label]")
    return MetricKey(source, metric, label)


def overlay(
    session: Session, *, sel: Selection, role: str, metric: str, max_points: int = 2000,
    t_start_s: float | None = None, t_end_s: float | None = None, run_ids: Sequence[uuid.UUID] | None = None,
) -> OverlayReply:
    """One metric of one role for every compared run, aligned to run start, at most max_points per line.

    pidstat series are per pid: they are summed per second within a host, so a command's %CPU is one
    line whatever its workers did.
    """
    if not 10 <= max_points <= MAX_POINTS_LIMIT:
        raise BadInput(f"max_points must be 10..{MAX_POINTS_LIMIT}")
    if t_start_s is not None and t_end_s is not None and t_end_s <= t_start_s:
        raise BadInput("t_end_s must be after t_start_s")
    mk = parse_metric_key(metric)
    wanted = set(run_ids) if run_ids is not None else None
    runs = [r for e in sel.experiments for r in sel.runs.get(e.id, []) if wanted is None or r.id in wanted]
    origins = {r.id: run_origin(r) for r in runs}
    rows: Sequence[Any] = []
    hosts: dict[int, str | None] = {}
    if runs:
        label_sql = ""
        params: dict[str, Any] = {
            "runs": [r.id for r in runs], "origins": [origins[r.id] for r in runs], "role": role,
            "source": mk.source, "metric": mk.metric, "maxp": max_points,
        }
        time_sql = ""
        if t_start_s is not None:
            time_sql += " AND sa.t >= o.origin + make_interval(secs => :t0)"
            params["t0"] = t_start_s
        if t_end_s is not None:
            time_sql += " AND sa.t <= o.origin + make_interval(secs => :t1)"
            params["t1"] = t_end_s
        if mk.label is not None:
            label_sql = "AND s.labels->>:label_key = :label"
            params["label_key"] = "command" if mk.source == "pidstat" else "queue"
            params["label"] = mk.label
        rows = session.execute(
            text(
                f"""
                WITH o AS (SELECT * FROM unnest(CAST(:runs AS uuid[]), CAST(:origins AS timestamptz[]))
                           AS o(run_id, origin)),
                ser AS (SELECT s.id, s.run_id, s.stream_id FROM series s
                        WHERE s.run_id = ANY(CAST(:runs AS uuid[])) AND s.role = :role AND s.source = :source
                          AND s.metric = :metric {label_sql}),
                per_sec AS (
                  SELECT ser.run_id, ser.stream_id, floor(extract(epoch FROM sa.t - o.origin)) AS t,
                         sum(sa.value) AS v
                  FROM ser JOIN o ON o.run_id = ser.run_id
                  -- One primary-key range per series: never the run's other series.
                  CROSS JOIN LATERAL (SELECT t, value FROM sample
                                      WHERE sample.run_id = ser.run_id AND sample.series_id = ser.id) sa
                  WHERE true {time_sql}
                  GROUP BY 1, 2, 3
                ),
                b AS (SELECT run_id, stream_id, min(t) AS t0, max(t) AS t1, count(*) AS n FROM per_sec GROUP BY 1, 2)
                SELECT p.run_id, p.stream_id, avg(p.t) AS t, avg(p.v) AS v, bool_or(b.n > :maxp) AS down
                FROM per_sec p JOIN b USING (run_id, stream_id)
                GROUP BY p.run_id, p.stream_id,
                         CASE WHEN b.n <= :maxp THEN p.t
                              ELSE floor((p.t - b.t0) * (:maxp - 1) / greatest(b.t1 - b.t0, 1e-9)) END
                ORDER BY 1, 2, 3
                """
            ),
            params,
        ).all()
        stream_ids = sorted({r[1] for r in rows})
        if stream_ids:
            for sid, hostname in session.execute(
                select(Stream.id, Host.hostname).outerjoin(Host, Host.id == Stream.host_id)
                .where(Stream.id.in_(stream_ids))
            ).all():
                hosts[sid] = hostname
    lines: dict[tuple[uuid.UUID, int], OverlayLine] = {}
    for run_id, stream_id, t, v, down in rows:
        line = lines.get((run_id, stream_id))
        if line is None:
            line = lines[(run_id, stream_id)] = OverlayLine(host=hosts.get(stream_id), stream_id=stream_id, t=[], v=[],
                                                            downsampled=bool(down))
        line.t.append(round(float(t), 3))
        line.v.append(float(v))
    label, unit = _metric_label(mk)
    experiments = []
    for e in sel.experiments:
        oruns = []
        for i, r in enumerate(sel.runs.get(e.id, [])):
            if wanted is not None and r.id not in wanted:
                continue
            oruns.append(OverlayRun(run_id=str(r.id), label=run_label(r, i), started_at=origins[r.id],
                                    lines=[ln for (rid, _), ln in sorted(lines.items(), key=lambda kv: kv[0][1])
                                           if rid == r.id]))
        experiments.append(OverlayExperiment(experiment=e.name, is_baseline=e.id == sel.baseline.id, runs=oruns))
    notes = [n for n in notes_for(session, sel=sel, run_ids=[r.id for r in runs]) if n.t_start_s is not None]
    return OverlayReply(role=role, metric=mk.key, label=label, unit=unit, max_points=max_points, t_start_s=t_start_s,
                        t_end_s=t_end_s, experiments=experiments, notes=notes)


def _metric_label(mk: MetricKey) -> tuple[str, str]:
    if mk.source == "vmstat":
        return VMSTAT_ROWS.get(mk.metric, (mk.metric, ""))
    if mk.source == "pidstat":
        label, unit = PIDSTAT_ROWS.get(mk.metric, (mk.metric, ""))
        return f"{mk.label} {label}", unit
    return f"queue {mk.label} {mk.metric}", ""


def available_overlays(session: Session, *, sel: Selection) -> set[tuple[str, str]]:
    """The (role, metric key) pairs the comparison's telemetry sections show: what a share link may chart."""
    loaded = load(session, sel)
    return set(loaded.telemetry)
