"""Trends: one metric across a project's experiments in time order, with change points.

Reads precomputed values only (run headlines, series steady-state stats, strace -c summaries),
never samples, so a history of hundreds of runs answers from a few indexed queries.

Metric keys:
  wrk.FIELD                     a run headline figure (wrk.requests_per_sec, wrk.latency_p99_ms, ...)
  SOURCE.METRIC@ROLE            a telemetry series' steady-state mean (vmstat.sy@proxy), summed over
                                the series of a run that share it (pidstat: one per process)
  strace-c.SYSCALL.FIELD@ROLE   a syscall's calls / seconds / errors / usecs_per_call from strace -c
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, and_, cast, column, func, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Session

from perflab.decisions.models import Decision
from perflab.errors import BadInput
from perflab.experiments.models import Experiment
from perflab.notes.models import Note
from perflab.projects.models import Project
from perflab.runs.models import Run, Series, Summary, counted
from perflab.trends import changepoints

# headline field -> (label, unit, higher is better)
WRK_FIELDS: dict[str, tuple[str, str, bool | None]] = {
    "requests_per_sec": ("requests/sec", "req/s", True),
    "latency_p50_ms": ("latency p50", "ms", False),
    "latency_p99_ms": ("latency p99", "ms", False),
    "latency_avg_ms": ("latency avg", "ms", False),
    "transfer_per_sec_bytes": ("transfer/sec", "B/s", True),
    "errors": ("errors", "", False),
}
SYSCALL_FIELDS = {"calls": "calls", "seconds": "s", "errors": "errors", "usecs_per_call": "µs"}
VALIDITIES = ("ok", "flagged", "invalid")
_NAME = r"[A-Za-z0-9_%./:-]+"


@dataclass(frozen=True)
class MetricKey:
    kind: str  # wrk | series | syscalls
    key: str
    field: str  # wrk field / series metric / syscall field
    source: str = ""
    role: str = ""
    syscall: str = ""


def parse_key(key: str) -> MetricKey:
    key = key.strip()
    if key.startswith("wrk."):
        field = key[4:]
        if field not in WRK_FIELDS:
            raise BadInput(f"unknown wrk metric {key!r}; one of: {', '.join('wrk.' + f for f in WRK_FIELDS)}")
        return MetricKey("wrk", key, field)
    m = re.fullmatch(rf"strace-c\.({_NAME})\.(\w+)@({_NAME})", key)
    if m:
        if m.group(2) not in SYSCALL_FIELDS:
            raise BadInput(f"{key!r}: a syscall metric ends in one of {', '.join(SYSCALL_FIELDS)}")
        return MetricKey("syscalls", key, m.group(2), source="strace-c", role=m.group(3), syscall=m.group(1))
    m = re.fullmatch(rf"(\w[\w-]*)\.({_NAME})@({_NAME})", key)
    if m:
        return MetricKey("series", key, m.group(2), source=m.group(1), role=m.group(3))
    raise BadInput(f"metric {key!r} is not wrk.FIELD, SOURCE.METRIC@ROLE (vmstat.sy@proxy) or "
                   "strace-c.SYSCALL.calls@ROLE; GET /api/projects/SLUG/trend/metrics lists them")


def _label(mk: MetricKey) -> tuple[str, str, bool | None]:
    if mk.kind == "wrk":
        return WRK_FIELDS[mk.field]
    if mk.kind == "syscalls":
        return f"{mk.syscall} {mk.field} ({mk.role})", SYSCALL_FIELDS[mk.field], False
    return f"{mk.source} {mk.field} ({mk.role})", "", None


def validity(headline: Any) -> str:
    """The truth helper's run validity, read defensively: a string or {"status": ...}; missing is ok."""
    v = headline.get("validity") if isinstance(headline, dict) else None
    if isinstance(v, dict):
        v = v.get("status") or v.get("level") or v.get("validity")
    return v if isinstance(v, str) and v in VALIDITIES else "ok"


def list_metrics(session: Session, *, project: Project) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    counts = session.execute(
        select(*[func.count().filter(Run.headline[f].astext.isnot(None)) for f in WRK_FIELDS])
        .where(Run.project_id == project.id)
    ).one()
    for (field, (label, unit, hib)), n in zip(WRK_FIELDS.items(), counts, strict=True):
        if n:
            out.append({"key": f"wrk.{field}", "label": label, "unit": unit, "kind": "wrk",
                        "higher_is_better": hib, "runs": n})
    rows = session.execute(
        select(Series.role, Series.source, Series.metric, func.max(Series.unit), func.count(func.distinct(Series.run_id)))
        .join(Run, Run.id == Series.run_id)
        .where(Run.project_id == project.id, Series.stats["mean"].isnot(None))
        .group_by(Series.role, Series.source, Series.metric)
        .order_by(Series.source, Series.metric, Series.role)
    ).all()
    for role, source, metric, unit, n in rows:
        mk = MetricKey("series", f"{source}.{metric}@{role}", metric, source=source, role=role)
        out.append({"key": mk.key, "label": _label(mk)[0], "unit": unit or "", "kind": "series",
                    "higher_is_better": None, "runs": n})
    element = _syscall_rows()
    syscall_rows = session.execute(
        select(Summary.role, element.c.value["syscall"].astext.label("syscall"), func.count(func.distinct(Summary.run_id)))
        .select_from(Summary).join(Run, Run.id == Summary.run_id).join(element, and_(True))
        .where(Run.project_id == project.id, Summary.kind == "strace-c")
        .group_by(Summary.role, "syscall").order_by("syscall", Summary.role)
    ).all()
    for role, syscall, n in syscall_rows:
        for field in ("calls", "seconds"):
            mk = MetricKey("syscalls", f"strace-c.{syscall}.{field}@{role}", field, "strace-c", role, syscall)
            out.append({"key": mk.key, "label": _label(mk)[0], "unit": SYSCALL_FIELDS[field], "kind": "syscalls",
                        "higher_is_better": False, "runs": n})
    return out


def _syscall_rows() -> Any:
    """The rows of each strace -c summary's syscall table, one per syscall, joined laterally."""
    return func.jsonb_array_elements(Summary.data["syscalls"]).table_valued(column("value", JSONB)).alias("row")


def _run_values(session: Session, project: Project, mk: MetricKey) -> dict[uuid.UUID, float]:
    if mk.kind == "wrk":
        value = cast(Run.headline[mk.field].astext, Float)
        rows = session.execute(select(Run.id, value).where(Run.project_id == project.id, value.isnot(None))).all()
    elif mk.kind == "series":
        rows = session.execute(
            select(Series.run_id, func.sum(cast(Series.stats["mean"].astext, Float)))
            .join(Run, Run.id == Series.run_id)
            .where(Run.project_id == project.id, Series.role == mk.role, Series.source == mk.source,
                   Series.metric == mk.field, Series.stats["mean"].isnot(None))
            .group_by(Series.run_id)
        ).all()
    else:
        element = _syscall_rows()
        rows = session.execute(
            select(Summary.run_id, func.sum(cast(element.c.value[mk.field].astext, Float)))
            .select_from(Summary).join(Run, Run.id == Summary.run_id).join(element, and_(True))
            .where(Run.project_id == project.id, Summary.kind == "strace-c", Summary.role == mk.role,
                   element.c.value["syscall"].astext == mk.syscall, element.c.value[mk.field].astext.isnot(None))
            .group_by(Summary.run_id)
        ).all()
    return {run_id: float(v) for run_id, v in rows if v is not None}


def _median(values: Sequence[float]) -> float | None:
    return changepoints.median(values) if values else None


def trend(session: Session, *, project: Project, metric: str, alpha: float = changepoints.ALPHA,
          include_archived: bool = False) -> dict[str, Any]:
    mk = parse_key(metric)
    label, unit, hib = _label(mk)
    values = _run_values(session, project, mk)
    # Runs in the trash or excluded by a user never count; archived experiments only when asked for.
    shown = select(Experiment.id).where(Experiment.project_id == project.id, Experiment.deleted_at.is_(None))
    if not include_archived:
        shown = shown.where(Experiment.status != "archived")
    runs = session.execute(
        select(Run.id, Run.label, Run.experiment_id, func.coalesce(Run.started_at, Run.created_at), Run.headline["validity"])
        .where(Run.id.in_(values), counted(), Run.experiment_id.in_(shown))
    ).all() if values else []
    by_exp: dict[int, list[dict[str, Any]]] = {}
    for run_id, run_label, exp_id, at, validity_raw in runs:
        by_exp.setdefault(exp_id, []).append({
            "run_id": run_id, "label": run_label, "at": at, "value": values[run_id],
            "validity": validity({"validity": validity_raw}),
        })
    names = dict(session.execute(select(Experiment.id, Experiment.name).where(Experiment.id.in_(by_exp))).all())
    markers = _markers(session, project, list(by_exp), [r[0] for r in runs], {r[0]: r[2] for r in runs})
    experiments: list[dict[str, Any]] = []
    for exp_id, exp_runs in by_exp.items():
        exp_runs.sort(key=lambda r: r["at"])
        good = [r["value"] for r in exp_runs if r["validity"] != "invalid"]
        experiments.append({
            "experiment": names.get(exp_id, "?"), "experiment_id": exp_id, "at": exp_runs[0]["at"],
            "median": _median(good), "n": len(good), "n_invalid": len(exp_runs) - len(good),
            "min": min(good) if good else None, "max": max(good) if good else None,
            "runs": exp_runs, "markers": markers.get(exp_id, []), "change_point": False,
        })
    experiments.sort(key=lambda e: (e["at"], e["experiment_id"]))
    # Change points on the experiments that have a valid run (an all-invalid experiment says nothing),
    # from every valid run, not only each experiment's median.
    usable = [e for e in experiments if e["median"] is not None]
    groups = [[r["value"] for r in e["runs"] if r["validity"] != "invalid"] for e in usable]
    found = changepoints.detect(groups, alpha=alpha)
    change_points = []
    for c in found:
        after, before = usable[c.index], usable[c.index - 1]
        after["change_point"] = True
        change_points.append({
            "experiment": after["experiment"], "experiment_id": after["experiment_id"],
            "previous_experiment": before["experiment"], "previous_experiment_id": before["experiment_id"],
            "index": experiments.index(after), "delta_pct": c.delta_pct, "before_median": c.before_median,
            "after_median": c.after_median, "p_value": c.p_value,
        })
    detectable = changepoints.detectable_step_pct(groups, alpha=alpha, found=found)
    return {"metric": mk.key, "label": label, "unit": unit, "higher_is_better": hib, "experiments": experiments,
            "change_points": change_points, "method": {**changepoints.METHOD, "alpha": alpha},
            **judgement(len(usable), found, detectable, alpha)}


def judgement(n: int, found: Sequence[changepoints.ChangePoint], detectable: float | None,
              alpha: float) -> dict[str, Any]:
    """What the history can say: a change, no change of a size it could see, or too short to judge."""
    need = changepoints.MIN_EXPERIMENTS
    if found:
        assessment = "changed"
        summary = f"{len(found)} change point{'s' if len(found) > 1 else ''} at a {alpha:.0%} false-alarm rate."
    elif n < need:
        assessment = "too_short"
        summary = (f"Too short to judge a change of any size: change points need {need} experiments "
                   f"(3 before and 3 after a step); this history has {n}.")
    elif detectable is None:
        assessment = "no_change"
        summary = "No change point: every experiment has the same value."
    else:
        assessment = "no_change"
        summary = (f"No change point of about ±{detectable:.0f}% or more (the smallest step this history shows "
                   f"4 times in 5 once 3 experiments follow it, at a {alpha:.0%} false-alarm rate). This "
                   "history is too short to judge a smaller change: more experiments, or more runs each, "
                   "would see one.")
    return {"assessment": assessment, "detectable_step_pct": detectable, "summary": summary}


def _markers(session: Session, project: Project, exp_ids: list[int], run_ids: list[uuid.UUID],
             run_exp: dict[uuid.UUID, int]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    if not exp_ids:
        return out
    for d in session.scalars(select(Decision).where(Decision.project_id == project.id,
                                                    Decision.experiment_id.in_(exp_ids)).order_by(Decision.id)):
        text = f"{d.component + ': ' if d.component else ''}{d.knob}"
        if d.before or d.after:
            text += f" {d.before} → {d.after}"
        out.setdefault(d.experiment_id, []).append({"kind": "decision", "id": d.id, "text": text, "status": d.status})
    notes = session.scalars(select(Note).where(Note.project_id == project.id).where(
        Note.experiment_id.in_(exp_ids) | Note.run_id.in_(run_ids)).order_by(Note.id))
    for n in notes:
        exp_id = n.experiment_id if n.experiment_id is not None else run_exp.get(n.run_id)  # type: ignore[arg-type]
        if exp_id is None:
            continue
        first_line = (n.body_md.strip().splitlines() or [""])[0]
        out.setdefault(exp_id, []).append({"kind": "note", "id": n.id, "text": first_line[:200], "status": None})
    return out
