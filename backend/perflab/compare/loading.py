"""Everything a comparison reads, loaded in a few queries from precomputed data: wrk and strace -c
summaries, steady-state `series.stats`, and the hosts of each run. Never raw samples."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Double, and_, case, cast, func, literal, or_, select
from sqlalchemy.orm import Session

from perflab.compare.selection import Selection
from perflab.hosts.models import Host
from perflab.runs.models import RunHost, Series, Stream, Summary

VMSTAT_ROWS: dict[str, tuple[str, str]] = {
    "us": ("CPU user", "%"),
    "sy": ("CPU system", "%"),
    "id": ("CPU idle", "%"),
    "wa": ("CPU iowait", "%"),
    "st": ("CPU steal", "%"),
    "in": ("Interrupts", "/s"),
    "cs": ("Context switches", "/s"),
    "r": ("Runnable processes", "procs"),
}
PIDSTAT_ROWS: dict[str, tuple[str, str]] = {
    "cpu_pct": ("%CPU", "%"),
    "usr_pct": ("%usr", "%"),
    "system_pct": ("%system", "%"),
    "cswch_per_s": ("voluntary switches", "/s"),
    "nvcswch_per_s": ("involuntary switches", "/s"),
}
# The agent id of imported runs' streams (perflab.imports.service.IMPORT_AGENT; not imported from
# there, which would load the import machinery into every comparison).
IMPORT_AGENT = "import"
NETQTOP_METRICS = ("tx.bps", "tx.pps", "rx.bps", "rx.pps", "tx.avg_size_bytes", "rx.avg_size_bytes")


@dataclass
class Loaded:
    wrk: dict[uuid.UUID, dict[str, Any]] = field(default_factory=dict)
    wrk_role: dict[uuid.UUID, str] = field(default_factory=dict)
    # (role, process) -> run -> syscall -> {calls, seconds, usecs_per_call, errors}; plus "__total__"
    strace: dict[tuple[str, str], dict[uuid.UUID, dict[str, dict[str, float]]]] = field(default_factory=dict)
    # (role, key) -> run -> value
    telemetry: dict[tuple[str, str], dict[uuid.UUID, float]] = field(default_factory=dict)
    telemetry_meta: dict[tuple[str, str], tuple[str, str, str, str]] = field(default_factory=dict)
    hosts: dict[uuid.UUID, list[tuple[str, Host]]] = field(default_factory=dict)


def num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def strace_process(stream_name: str | None, agent_id: str | None) -> str:
    """The traced process a strace -c table belongs to. Only an agent's collector names one
    (``strace-c:nginx``); an imported table's stream is named after its file, and two runs of one
    experiment whose files were named differently must still land in one table."""
    if agent_id == IMPORT_AGENT or not stream_name or ":" not in stream_name:
        return "all"
    return stream_name.split(":", 1)[1]


def _fold_imported_tables(strace: dict[tuple[str, str], dict[uuid.UUID, dict[str, dict[str, float]]]]) -> None:
    """An imported table names no process ("all"); when the agent's runs of that role traced exactly one
    (``strace-c:nginx``), the imported runs join that table: one syscall table, not two half-empty ones."""
    for role, process in [k for k in strace if k[1] == "all"]:
        named = [k for k in strace if k[0] == role and k[1] != "all"]
        if len(named) == 1:
            strace[named[0]].update(strace.pop((role, process)))


def load(session: Session, sel: Selection) -> Loaded:
    out = Loaded()
    run_ids = sel.run_ids
    if not run_ids:
        return out
    rows = session.execute(
        select(Summary.run_id, Summary.kind, Summary.role, Summary.data, Stream.name, Stream.agent_id)
        .outerjoin(Stream, Stream.id == Summary.stream_id)
        .where(Summary.run_id.in_(run_ids), Summary.kind.in_(("wrk", "strace-c")))
        .order_by(Summary.id)
    ).all()
    for run_id, kind, role, data, stream_name, agent_id in rows:
        if kind == "wrk":
            out.wrk[run_id] = data
            out.wrk_role[run_id] = role or "loadgen"
            continue
        process = strace_process(stream_name, agent_id)
        table = out.strace.setdefault((role or "", process), {}).setdefault(run_id, {})
        for sc in data.get("syscalls") or []:
            name = str(sc.get("syscall"))
            cur = table.setdefault(name, {"calls": 0.0, "seconds": 0.0, "errors": 0.0})
            cur["calls"] += num(sc.get("calls")) or 0.0
            cur["seconds"] += num(sc.get("seconds")) or 0.0
            cur["errors"] += num(sc.get("errors")) or 0.0
        total = data.get("total") or {}
        cur = table.setdefault("__total__", {"calls": 0.0, "seconds": 0.0, "errors": 0.0})
        cur["calls"] += num(total.get("calls")) or 0.0
        cur["seconds"] += num(total.get("seconds")) or 0.0
        cur["errors"] += num(total.get("errors")) or 0.0
    _fold_imported_tables(out.strace)

    # Steady-state means per run, role and row, aggregated where the data is: a vmstat row is the mean
    # over the role's hosts, a pidstat row the sum over the command's pids (and hosts), netqtop per queue.
    mean = cast(Series.stats["mean"].astext, Double)
    label = case(
        (Series.source == "pidstat", func.coalesce(Series.labels["command"].astext, "?")),
        (Series.source == "netqtop", func.coalesce(Series.labels["queue"].astext, "total")),
        else_=literal(""),
    )
    rows = session.execute(
        select(Series.run_id, Series.role, Series.source, Series.metric, label,
               case((Series.source == "vmstat", func.avg(mean)), else_=func.sum(mean)))
        .where(
            Series.run_id.in_(run_ids),
            or_(
                and_(Series.source == "vmstat", Series.metric.in_(list(VMSTAT_ROWS))),
                and_(Series.source == "pidstat", Series.metric.in_(list(PIDSTAT_ROWS))),
                and_(Series.source == "netqtop", Series.metric.in_(list(NETQTOP_METRICS))),
            ),
        )
        .group_by(Series.run_id, Series.role, Series.source, Series.metric, label)
    ).all()
    for run_id, role, source, metric, lab, value in rows:
        if value is None:
            continue
        if source == "vmstat":
            key = f"vmstat.{metric}"
            name, unit = VMSTAT_ROWS[metric]
        elif source == "pidstat":
            key = f"pidstat.{metric}[{lab}]"
            name, unit = PIDSTAT_ROWS[metric]
            name = f"{lab} {name}"
        else:
            key, name, unit = f"netqtop.{metric}[{lab}]", f"queue {lab} {metric}", ""
        out.telemetry.setdefault((role, key), {})[run_id] = float(value)
        out.telemetry_meta[(role, key)] = (source, metric, name, unit)

    for run_id, role, host in session.execute(
        select(RunHost.run_id, RunHost.role, Host).join(Host, Host.id == RunHost.host_id)
        .where(RunHost.run_id.in_(run_ids)).order_by(Host.hostname)
    ).all():
        out.hosts.setdefault(run_id, []).append((role, host))
    return out
