"""Compare experiments against a baseline: result table, noise verdicts, validity, host telemetry,
syscalls, what changed, top movers. Overlays of time series aligned to run start.

The main comparison reads only precomputed data (wrk and strace-c summaries, the steady-state
`series.stats` refreshed when a stream closes, artifacts, notes), never the raw samples, so it stays
fast however long the runs were. Overlays read series chunks, downsampled before they leave.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Double, and_, case, cast, func, literal, or_, select, text
from sqlalchemy.orm import Session

from perflab import stats
from perflab.artifacts import service as artifacts_service
from perflab.artifacts.models import Artifact
from perflab.compare import configs
from perflab.compare.schemas import (
    Cell,
    ChangeSet,
    CompareReply,
    ExperimentColumn,
    FileDiff,
    KnobChange,
    MetricVerdict,
    Mover,
    NoteRef,
    OverlayExperiment,
    OverlayLine,
    OverlayMetric,
    OverlayReply,
    OverlayRun,
    ResultRow,
    RoleTelemetry,
    RunInfo,
    RunWarning,
    StatsMethod,
    SyscallCell,
    SyscallRow,
    SyscallTable,
    TelemetryRow,
    Validity,
)
from perflab.errors import BadInput, NotFound
from perflab.experiments.models import Experiment
from perflab.hosts.models import Host
from perflab.notes.models import Note
from perflab.profiles.models import Profile
from perflab.projects.models import Project
from perflab.runs.models import Run, RunHost, Series, Stream, Summary
from perflab.series import service as series_service
from perflab.series.service import MAX_POINTS_LIMIT, run_origin

log = logging.getLogger(__name__)

MAX_EXPERIMENTS = 12
# Runs still collecting have no final numbers yet; every finished run counts, flagged if need be.
FINISHED = ("complete", "partial", "failed")

# (key, label, unit, direction): the table engineers write by hand, in their order.
RESULT_METRICS: tuple[tuple[str, str, str, stats.Direction], ...] = (
    ("wrk.latency_percentiles_ms.50", "p50 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.75", "p75 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.90", "p90 latency", "ms", "lower_is_better"),
    ("wrk.latency_percentiles_ms.99", "p99 latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.avg", "Avg latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.stdev", "Stdev latency", "ms", "lower_is_better"),
    ("wrk.latency_ms.max", "Max latency", "ms", "lower_is_better"),
    ("wrk.requests_per_sec", "Requests/sec", "req/s", "higher_is_better"),
    ("wrk.transfer_per_sec_bytes", "Transfer/sec", "B/s", "higher_is_better"),
    ("wrk.requests", "Requests", "requests", "higher_is_better"),
    ("wrk.non_2xx_3xx", "Non-2xx/3xx responses", "responses", "lower_is_better"),
    ("wrk.socket_errors", "Socket errors", "errors", "lower_is_better"),
)

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
NETQTOP_METRICS = ("tx.bps", "tx.pps", "rx.bps", "rx.pps", "tx.avg_size_bytes", "rx.avg_size_bytes")

STEAL_LIMIT_PCT = 5.0
LOADGEN_IDLE_LIMIT_PCT = 5.0
WRK_CPU_LIMIT_PCT_PER_THREAD = 90.0
TOP_MOVERS = 25

_KEY = re.compile(r"^(vmstat|pidstat|netqtop)\.([A-Za-z0-9_.]+?)(?:\[(.{1,200})\])?$")


@dataclass
class Selection:
    project: Project
    experiments: list[Experiment]  # baseline first
    runs: dict[int, list[Run]] = field(default_factory=dict)

    @property
    def baseline(self) -> Experiment:
        return self.experiments[0]

    @property
    def run_ids(self) -> list[uuid.UUID]:
        return [r.id for e in self.experiments for r in self.runs.get(e.id, [])]


# -- selection -----------------------------------------------------------------------------------------


def find_experiments(session: Session, *, project: Project, refs: Sequence[str]) -> list[Experiment]:
    """Experiments by name, or by id when no experiment has that name; order kept, duplicates dropped."""
    wanted = [r.strip() for r in refs if r and r.strip()]
    # Only what fits a bigint can be an id; anything longer is a name (or unknown).
    ids = [int(r) for r in wanted if r.isdigit() and len(r) <= 18]
    rows = list(
        session.scalars(
            select(Experiment).where(
                Experiment.project_id == project.id, or_(Experiment.name.in_(wanted), Experiment.id.in_(ids))
            )
        )
    )
    by_name = {e.name: e for e in rows}
    by_id = {e.id: e for e in rows}
    out: list[Experiment] = []
    for ref in wanted:
        exp = by_name.get(ref) or (by_id.get(int(ref)) if ref.isdigit() and len(ref) <= 18 else None)
        if exp is None:
            raise NotFound(f"project {project.slug!r} has no experiment {ref!r}")
        if exp not in out:
            out.append(exp)
    return out


def select_experiments(
    session: Session, *, project: Project, baseline: str | None, experiments: Sequence[str]
) -> Selection:
    refs = ([baseline] if baseline else []) + list(experiments)
    if not refs:
        raise BadInput("name a baseline and at least one experiment to compare")
    chosen = find_experiments(session, project=project, refs=refs)
    if len(chosen) > MAX_EXPERIMENTS:
        raise BadInput(f"compare at most {MAX_EXPERIMENTS} experiments at once")
    runs = session.scalars(
        select(Run)
        .where(Run.project_id == project.id, Run.experiment_id.in_([e.id for e in chosen]), Run.status.in_(FINISHED))
        .order_by(Run.created_at, Run.id)
    )
    by_exp: dict[int, list[Run]] = defaultdict(list)
    for r in runs:
        by_exp[r.experiment_id].append(r)
    return Selection(project=project, experiments=chosen, runs=dict(by_exp))


def select_runs(
    session: Session, *, project: Project, experiment_ids: Sequence[int], run_ids: Sequence[uuid.UUID]
) -> Selection:
    """Exactly these runs (a saved comparison): runs added to the experiments later are not included."""
    exps = {e.id: e for e in session.scalars(
        select(Experiment).where(Experiment.project_id == project.id, Experiment.id.in_(list(experiment_ids)))
    )}
    chosen = [exps[i] for i in experiment_ids if i in exps]
    if not chosen:
        raise NotFound("the experiments of this comparison no longer exist")
    by_exp: dict[int, list[Run]] = defaultdict(list)
    if run_ids:
        for r in session.scalars(
            select(Run).where(Run.project_id == project.id, Run.id.in_(list(run_ids))).order_by(Run.created_at, Run.id)
        ):
            if r.experiment_id in exps:
                by_exp[r.experiment_id].append(r)
    return Selection(project=project, experiments=chosen, runs=dict(by_exp))


# -- loading precomputed data -------------------------------------------------------------------------


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


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def _load(session: Session, sel: Selection) -> Loaded:
    out = Loaded()
    run_ids = sel.run_ids
    if not run_ids:
        return out
    rows = session.execute(
        select(Summary.run_id, Summary.kind, Summary.role, Summary.data, Stream.name)
        .outerjoin(Stream, Stream.id == Summary.stream_id)
        .where(Summary.run_id.in_(run_ids), Summary.kind.in_(("wrk", "strace-c")))
        .order_by(Summary.id)
    ).all()
    for run_id, kind, role, data, stream_name in rows:
        if kind == "wrk":
            out.wrk[run_id] = data
            out.wrk_role[run_id] = role or "loadgen"
            continue
        process = (stream_name or "strace-c").split(":", 1)[1] if ":" in (stream_name or "") else "all"
        table = out.strace.setdefault((role or "", process), {}).setdefault(run_id, {})
        for sc in data.get("syscalls") or []:
            name = str(sc.get("syscall"))
            cur = table.setdefault(name, {"calls": 0.0, "seconds": 0.0, "errors": 0.0})
            cur["calls"] += _num(sc.get("calls")) or 0.0
            cur["seconds"] += _num(sc.get("seconds")) or 0.0
            cur["errors"] += _num(sc.get("errors")) or 0.0
        total = data.get("total") or {}
        cur = table.setdefault("__total__", {"calls": 0.0, "seconds": 0.0, "errors": 0.0})
        cur["calls"] += _num(total.get("calls")) or 0.0
        cur["seconds"] += _num(total.get("seconds")) or 0.0
        cur["errors"] += _num(total.get("errors")) or 0.0

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


# -- validity -----------------------------------------------------------------------------------------


def _run_warnings(run: Run, loaded: Loaded) -> list[RunWarning]:
    out: list[RunWarning] = []
    wrk = loaded.wrk.get(run.id)
    if run.status == "partial":
        why = "; ".join(run.status_reasons or []) or "some streams are incomplete"
        out.append(RunWarning(kind="partial", message=f"partial run: {why}"))
    elif run.status == "failed":
        out.append(RunWarning(kind="failed", message="the run failed"))
    if wrk is None:
        out.append(RunWarning(kind="no_load_result", message="no wrk result: this run adds no load numbers"))
    else:
        non2xx = int(_num(wrk.get("non_2xx_3xx")) or 0)
        if non2xx:
            out.append(RunWarning(kind="non_2xx", message=f"{non2xx} non-2xx/3xx responses"))
        sock = {k: int(_num(v) or 0) for k, v in (wrk.get("socket_errors") or {}).items()}
        if any(sock.values()):
            detail = ", ".join(f"{k} {v}" for k, v in sock.items() if v)
            out.append(RunWarning(kind="socket_errors", message=f"socket errors: {detail}"))
        for w in (wrk.get("warnings") or [])[:3]:
            out.append(RunWarning(kind="parse", message=f"wrk output: {w}"))
    for (role, key), per_run in loaded.telemetry.items():
        value = per_run.get(run.id)
        if value is None:
            continue
        if key == "vmstat.st" and value > STEAL_LIMIT_PCT:
            out.append(RunWarning(kind="steal", message=f"CPU steal {value:.1f}% on {role} (vmstat st)"))
        loadgen = loaded.wrk_role.get(run.id, "loadgen")
        if role == loadgen and key == "vmstat.id" and value < LOADGEN_IDLE_LIMIT_PCT:
            out.append(RunWarning(kind="loadgen_saturated",
                                  message=f"load generator saturated: {value:.1f}% idle on {role} (vmstat id)"))
        if role == loadgen and key == "pidstat.cpu_pct[wrk]" and wrk is not None:
            threads = int(_num(wrk.get("threads")) or 1)
            if value >= WRK_CPU_LIMIT_PCT_PER_THREAD * threads:
                out.append(RunWarning(kind="loadgen_saturated",
                                      message=f"load generator saturated: wrk used {value:.0f}% CPU with {threads} "
                                              "threads"))
    return out


# -- cells ----------------------------------------------------------------------------------------------


def _cell(values: list[float | None], base: list[float] | None, direction: stats.Direction,
          flags: list[str] | None = None) -> Cell:
    present = [v for v in values if v is not None]
    d = stats.describe(present)
    cell = Cell(n=d.n, median=d.median, min=d.min, max=d.max, values=values,
                noise_floor_pct=stats.pct(stats.noise_floor(present)), verdict="no_data", flags=flags or [])
    if base is None:
        # The baseline column: compared with itself it is "within noise" (or has no noise estimate).
        cell.delta, cell.delta_pct = (0.0, 0.0) if d.n else (None, None)
        cell.verdict = stats.verdict(stats.bootstrap_interval(present, present), direction,
                                     n_baseline=d.n, n_other=d.n)
        return cell
    c = stats.compare(base, present, direction)
    cell.delta = c.delta_abs
    cell.delta_pct = stats.pct(c.delta_rel)
    cell.verdict = c.verdict
    if c.interval is not None:
        cell.ci_low, cell.ci_high = c.interval.diff_low, c.interval.diff_high
        cell.ci_low_pct, cell.ci_high_pct = stats.pct(c.interval.rel_low), stats.pct(c.interval.rel_high)
    return cell


def _path(data: dict[str, Any], dotted: str) -> float | None:
    if dotted == "socket_errors":
        sock = data.get("socket_errors")
        if not isinstance(sock, dict):
            return None
        return float(sum(_num(v) or 0.0 for v in sock.values()))
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return _num(cur)


def _result_metrics(loaded: Loaded, run_ids: Iterable[uuid.UUID]) -> list[tuple[str, str, str, stats.Direction]]:
    """The fixed rows, plus any extra percentiles (wrk2's 99.9, 99.99) that some run reports."""
    extra: set[str] = set()
    for rid in run_ids:
        extra |= set((loaded.wrk.get(rid) or {}).get("latency_percentiles_ms") or {})
    extra -= {"50", "75", "90", "99"}
    rows = list(RESULT_METRICS)
    at = 4
    for p in sorted(extra, key=lambda x: float(x) if x.replace(".", "", 1).isdigit() else 0.0):
        rows.insert(at, (f"wrk.latency_percentiles_ms.{p}", f"p{p} latency", "ms", "lower_is_better"))
        at += 1
    return rows


def _wrk_value(data: dict[str, Any] | None, key: str) -> float | None:
    if data is None:
        return None
    path = key.removeprefix("wrk.")
    if path.startswith("latency_percentiles_ms."):
        return _num((data.get("latency_percentiles_ms") or {}).get(path.split(".", 1)[1]))
    return _path(data, path)


# -- the comparison -----------------------------------------------------------------------------------


def _label(run: Run, index: int) -> str:
    return run.label or f"run {index + 1}"


def compare(session: Session, *, sel: Selection) -> CompareReply:
    loaded = _load(session, sel)
    exps = sel.experiments
    base = sel.baseline
    names = [e.name for e in exps]

    # Columns with per-run validity, and the profiles of each run (one query for all runs).
    profiles: dict[str, list[str]] = {}
    for run_id, profile_id in session.execute(
        select(Profile.run_id, Profile.id).where(Profile.run_id.in_(sel.run_ids)).order_by(Profile.created_at)
    ):
        profiles.setdefault(str(run_id), []).append(str(profile_id))
    columns: list[ExperimentColumn] = []
    warnings_by_exp: dict[int, list[str]] = {}
    summary: list[str] = []
    flagged_runs = 0
    for e in exps:
        infos = []
        flags: list[str] = []
        for i, r in enumerate(sel.runs.get(e.id, [])):
            ws = _run_warnings(r, loaded)
            if ws:
                flagged_runs += 1
            for w in ws:
                flags.append(f"{_label(r, i)}: {w.message}")
                summary.append(f"{e.name} / {_label(r, i)}: {w.message}")
            infos.append(RunInfo(id=str(r.id), label=_label(r, i), status=r.status, status_reasons=r.status_reasons or [],
                                 created_at=r.created_at, started_at=r.started_at, warnings=ws,
                                 profile_ids=profiles.get(str(r.id), [])))
        warnings_by_exp[e.id] = flags
        columns.append(ExperimentColumn(id=e.id, name=e.name, is_baseline=e.id == base.id, runs=infos))

    # The result table.
    results: list[ResultRow] = []
    for key, label, unit, direction in _result_metrics(loaded, sel.run_ids):
        per_exp = {e.id: [_wrk_value(loaded.wrk.get(r.id), key) for r in sel.runs.get(e.id, [])] for e in exps}
        base_vals = [v for v in per_exp[base.id] if v is not None]
        cells = {
            e.name: _cell(per_exp[e.id], None if e.id == base.id else base_vals, direction, warnings_by_exp[e.id])
            for e in exps
        }
        if all(c.n == 0 for c in cells.values()):
            continue
        results.append(ResultRow(key=key, label=label, unit=unit, direction=direction, cells=cells))

    metrics = [
        MetricVerdict(
            key=row.key, direction=row.direction,
            values={n: row.cells[n].median for n in names},
            runs={n: row.cells[n].n for n in names},
            delta_pct={n: row.cells[n].delta_pct for n in names},
            verdict={n: row.cells[n].verdict for n in names},
        )
        for row in results
    ]

    telemetry, netqtop = _telemetry(sel, loaded)
    syscalls = _syscalls(sel, loaded)
    changes = _changes(session, sel)
    movers = _movers(sel, results, telemetry, netqtop, syscalls)
    notes = notes_for(session, sel=sel)
    overlay_metrics = [OverlayMetric(role=t.role, key=row.key, label=row.label, unit=row.unit)
                       for t in telemetry for row in t.rows]
    overlay_metrics += [OverlayMetric(role=row.role, key=row.key, label=row.label, unit=row.unit) for row in netqtop]
    return CompareReply(
        baseline=base.name, experiments=names, metrics=metrics, project=sel.project.slug,
        method=StatsMethod(**stats.METHOD),  # type: ignore[arg-type]
        columns=columns, results=results,
        validity=Validity(summary=summary, flagged_runs=flagged_runs),
        telemetry=telemetry, syscalls=syscalls, netqtop=netqtop, changes=changes, top_movers=movers, notes=notes,
        overlay_metrics=overlay_metrics,
    )


def _key_order(key: str) -> tuple[int, str]:
    source = key.split(".", 1)[0]
    if source == "vmstat":
        metric = key.split(".", 1)[1]
        return (0, f"{list(VMSTAT_ROWS).index(metric):02d}" if metric in VMSTAT_ROWS else metric)
    if source == "pidstat":
        metric, _, command = key.split(".", 1)[1].partition("[")
        return (1, f"{command}{list(PIDSTAT_ROWS).index(metric):02d}" if metric in PIDSTAT_ROWS else key)
    return (2, key)


def _telemetry(sel: Selection, loaded: Loaded) -> tuple[list[RoleTelemetry], list[TelemetryRow]]:
    base = sel.baseline
    by_role: dict[str, list[TelemetryRow]] = defaultdict(list)
    netq: list[TelemetryRow] = []
    for (role, key) in sorted(loaded.telemetry, key=lambda rk: (rk[0], _key_order(rk[1]))):
        per_run = loaded.telemetry[(role, key)]
        per_exp = {e.id: [per_run.get(r.id) for r in sel.runs.get(e.id, [])] for e in sel.experiments}
        base_vals = [v for v in per_exp[base.id] if v is not None]
        cells = {e.name: _cell(per_exp[e.id], None if e.id == base.id else base_vals, "neutral")
                 for e in sel.experiments}
        source, metric, label, unit = loaded.telemetry_meta[(role, key)]
        row = TelemetryRow(key=key, role=role, source=source, metric=metric, label=label, unit=unit,
                           direction="neutral", cells=cells)
        (netq if source == "netqtop" else by_role[role]).append(row)
    hosts: dict[str, set[str]] = defaultdict(set)
    for pairs in loaded.hosts.values():
        for role, host in pairs:
            hosts[role].add(host.hostname)
    return [RoleTelemetry(role=role, hosts=sorted(hosts.get(role, set())), rows=rows)
            for role, rows in sorted(by_role.items())], netq


def _syscall_cell(
    per_run: dict[uuid.UUID, dict[str, dict[str, float]]], runs: list[Run], base_runs: list[Run] | None, syscall: str
) -> SyscallCell:
    """Medians over the runs that traced this process; a syscall missing from a run's table had 0 calls."""

    def col(rs: list[Run], name: str) -> list[float]:
        return [per_run[r.id].get(syscall, {}).get(name, 0.0) for r in rs]

    calls, secs, errs = col(runs, "calls"), col(runs, "seconds"), col(runs, "errors")
    upc = [s / c * 1e6 for s, c in zip(secs, calls, strict=True) if c]
    out = SyscallCell(n=len(calls), calls=stats.median(calls), seconds=stats.median(secs),
                      usecs_per_call=stats.median(upc), errors=stats.median(errs))
    if base_runs is not None:
        cc = stats.compare(col(base_runs, "calls"), calls, "neutral")
        cs = stats.compare(col(base_runs, "seconds"), secs, "neutral")
        out.calls_delta_pct, out.seconds_delta_pct = stats.pct(cc.delta_rel), stats.pct(cs.delta_rel)
        out.calls_verdict, out.seconds_verdict = cc.verdict, cs.verdict
    elif calls:
        out.calls_delta_pct = out.seconds_delta_pct = 0.0
        out.calls_verdict = out.seconds_verdict = "within_noise" if len(calls) > 1 else "single_run"
    return out


def _syscall_cells(sel: Selection, per_run: dict[uuid.UUID, dict[str, dict[str, float]]],
                   runs_with: dict[int, list[Run]], syscall: str) -> dict[str, SyscallCell]:
    base_runs = runs_with[sel.baseline.id]
    return {e.name: _syscall_cell(per_run, runs_with[e.id], None if e.id == sel.baseline.id else base_runs, syscall)
            for e in sel.experiments}


def _syscalls(sel: Selection, loaded: Loaded) -> list[SyscallTable]:
    base = sel.baseline
    tables: list[SyscallTable] = []
    for (role, process), per_run in sorted(loaded.strace.items()):
        runs_with = {e.id: [r for r in sel.runs.get(e.id, []) if r.id in per_run] for e in sel.experiments}
        names = sorted({s for t in per_run.values() for s in t if s != "__total__"})
        totals = _syscall_cells(sel, per_run, runs_with, "__total__")
        bt = totals[base.name]
        rows: list[SyscallRow] = []
        for name in names:
            cells = _syscall_cells(sel, per_run, runs_with, name)
            b = cells[base.name]
            score = 0.0
            texts: dict[str, str] = {}
            for e in sel.experiments[1:]:
                c, t = cells[e.name], totals[e.name]
                if not c.n or not b.n:
                    continue
                share = abs(_share(c.calls, t.calls) - _share(b.calls, bt.calls)) + abs(
                    _share(c.seconds, t.seconds) - _share(b.seconds, bt.seconds))
                score = max(score, share)
                texts[e.name] = (f"{name} {b.calls or 0:.0f} ({b.seconds or 0:.2f}s) -> "
                                 f"{c.calls or 0:.0f} ({c.seconds or 0:.2f}s)")
            rows.append(SyscallRow(syscall=name, cells=cells, change_score=round(score, 4), summary=texts))
        rows.sort(key=lambda r: (-r.change_score, -(r.cells[base.name].seconds or 0.0), r.syscall))
        tables.append(SyscallTable(role=role, process=process, totals=totals, rows=rows))
    return tables


def _share(part: float | None, total: float | None) -> float:
    return (part or 0.0) / total if total else 0.0


def _fmt(v: float | None, unit: str = "") -> str:
    if v is None:
        return "-"
    if unit == "ms":
        return f"{v:.2f}ms"
    if unit == "%":
        return f"{v:.1f}%"
    if abs(v) >= 100 or float(v).is_integer():
        return f"{v:.0f}"
    return f"{v:.2f}"


def _movers(sel: Selection, results: list[ResultRow], telemetry: list[RoleTelemetry], netqtop: list[TelemetryRow],
            syscalls: list[SyscallTable]) -> list[Mover]:
    base = sel.baseline.name
    out: list[tuple[float, Mover]] = []

    def add(section: Any, key: str, label: str, role: str | None, cells: dict[str, Cell], unit: str) -> None:
        b = cells[base]
        for name, c in cells.items():
            if name == base or c.n == 0 or b.n == 0 or c.delta_pct is None:
                continue
            text_ = f"{label}: {_fmt(b.median, unit)} -> {_fmt(c.median, unit)} ({c.delta_pct:+.1f}%)"
            out.append((min(abs(c.delta_pct), 1000.0), Mover(
                section=section, key=key, label=label, role=role, experiment=name, baseline_value=b.median,
                value=c.median, delta_pct=c.delta_pct, verdict=c.verdict, significant=stats.is_significant(c.verdict),
                text=text_)))

    for row in results:
        if row.key in ("wrk.requests",):
            continue  # follows requests/sec over a fixed duration: not a separate finding
        add("results", row.key, row.label, None, row.cells, row.unit)
    for t in telemetry:
        for trow in t.rows:
            add("telemetry", trow.key, f"{t.role} {trow.label}", t.role, trow.cells, trow.unit)
    for trow in netqtop:
        add("netqtop", trow.key, f"{trow.role} {trow.label}", trow.role, trow.cells, trow.unit)
    for table in syscalls:
        for srow in table.rows:
            b = srow.cells[base]
            for name, c in srow.cells.items():
                if name == base or not c.n or not b.n:
                    continue
                tot = table.totals[name]
                # Only syscalls that matter: at least 5% of the calls or time on one side.
                if max(_share(c.calls, tot.calls), _share(c.seconds, tot.seconds), _share(b.calls, table.totals[base].calls),
                       _share(b.seconds, table.totals[base].seconds)) < 0.05:
                    continue
                delta = c.calls_delta_pct
                magnitude = 1000.0 if delta is None else min(abs(delta), 1000.0)
                out.append((magnitude, Mover(
                    section="syscalls", key=f"strace.{table.process}.{srow.syscall}.calls",
                    label=f"{table.role} {table.process} {srow.syscall} calls", role=table.role, experiment=name,
                    baseline_value=b.calls, value=c.calls, delta_pct=delta, verdict=c.calls_verdict,
                    significant=stats.is_significant(c.calls_verdict), text=srow.summary.get(name, ""))))
    out.sort(key=lambda m: (not m[1].significant, -m[0], m[1].label))
    return [m for _, m in out[:TOP_MOVERS]]


# -- what changed ---------------------------------------------------------------------------------------


MAX_CONFIG_BYTES = 1024 * 1024


def _reference_runs(session: Session, sel: Selection) -> tuple[dict[int, Run | None], dict[uuid.UUID, list[Artifact]]]:
    """Per experiment, the first run that carries config snapshots (else its first run)."""
    arts: dict[uuid.UUID, list[Artifact]] = defaultdict(list)
    if sel.run_ids:
        for a in session.scalars(
            select(Artifact).where(Artifact.run_id.in_(sel.run_ids), Artifact.kind.in_(("config", "sysctl")))
            .order_by(Artifact.id)
        ):
            assert a.run_id is not None
            arts[a.run_id].append(a)
    ref: dict[int, Run | None] = {}
    for e in sel.experiments:
        runs = sel.runs.get(e.id, [])
        ref[e.id] = next((r for r in runs if arts.get(r.id)), runs[0] if runs else None)
    return ref, arts


def _artifact_text(a: Artifact) -> str | None:
    """The snapshot as text; None when it is binary, too large to diff, or its bytes are unreadable."""
    if a.size_bytes > MAX_CONFIG_BYTES:
        return None
    try:
        data = artifacts_service.read(a)
    except OSError:
        # A storage problem must not take the whole comparison down: the file shows as not diffed.
        log.warning("artifact %s: stored bytes unreadable", a.id, exc_info=True)
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def _changes(session: Session, sel: Selection) -> list[ChangeSet]:
    ref, arts = _reference_runs(session, sel)
    facts: dict[uuid.UUID, dict[str, dict[str, Any]]] = defaultdict(dict)
    ref_ids = [r.id for r in ref.values() if r is not None]
    if ref_ids:
        for run_id, role, host in session.execute(
            select(RunHost.run_id, RunHost.role, Host).join(Host, Host.id == RunHost.host_id)
            .where(RunHost.run_id.in_(ref_ids)).order_by(Host.hostname)
        ).all():
            facts[run_id].setdefault(role, host.facts or {})

    texts: dict[int, str | None] = {}

    def files_of(run: Run | None) -> dict[tuple[str, str, str], Artifact]:
        if run is None:
            return {}
        # The last snapshot of a name wins (a re-upload corrects the first).
        return {(a.kind, a.role, a.name): a for a in arts.get(run.id, [])}

    def content(a: Artifact | None) -> str | None:
        if a is None:
            return None
        if a.id not in texts:
            texts[a.id] = _artifact_text(a)
        return texts[a.id]

    base = sel.baseline
    base_run = ref[base.id]
    base_files = files_of(base_run)
    base_facts = facts.get(base_run.id, {}) if base_run else {}
    out: list[ChangeSet] = []
    for e in sel.experiments[1:]:
        run = ref[e.id]
        files = files_of(run)
        diffs: list[FileDiff] = []
        knobs: list[KnobChange] = []
        for key in sorted(set(base_files) | set(files)):
            kind, role, name = key
            a, b = base_files.get(key), files.get(key)
            ta, tb = content(a), content(b)
            if (a is not None and ta is None) or (b is not None and tb is None):
                diffs.append(FileDiff(kind=kind, name=name, role=role, status="binary",  # type: ignore[arg-type]
                                      diff="(binary, larger than 1 MiB or unreadable: not diffed)"))
                continue
            status = "added" if a is None else "removed" if b is None else ("same" if ta == tb else "changed")
            diff, cut = configs.unified_diff(ta or "", tb or "", from_name=f"{base.name}/{name}",
                                             to_name=f"{e.name}/{name}")
            diffs.append(FileDiff(kind=kind, name=name, role=role, status=status, diff=diff,  # type: ignore[arg-type]
                                  truncated=cut))
            for k in configs.knob_changes(ta, tb, file=name, kind=kind):
                knobs.append(KnobChange(component=k.component, knob=k.knob, context=k.context, before=k.before,
                                        after=k.after, file=k.file))
        run_facts = facts.get(run.id, {}) if run else {}
        for role in sorted(set(base_facts) | set(run_facts)):
            fa, fb = base_facts.get(role), run_facts.get(role)
            ta, tb = configs.facts_text(fa or {}), configs.facts_text(fb or {})
            status = "added" if fa is None else "removed" if fb is None else ("same" if ta == tb else "changed")
            diff, cut = configs.unified_diff(ta, tb, from_name=f"{base.name}/{role}", to_name=f"{e.name}/{role}")
            diffs.append(FileDiff(kind="host_facts", name=f"{role} host facts", role=role,
                                  status=status, diff=diff, truncated=cut))  # type: ignore[arg-type]
        out.append(ChangeSet(experiment=e.name, baseline=base.name, run_id=str(run.id) if run else None,
                             baseline_run_id=str(base_run.id) if base_run else None, files=diffs, knob_changes=knobs))
    return out


def knob_changes_between(session: Session, *, project: Project, baseline: Experiment,
                         experiment: Experiment) -> list[configs.Knob]:
    """The knob changes from the baseline's config snapshots to the experiment's (decision pre-fill)."""
    sel = select_experiments(session, project=project, baseline=str(baseline.name), experiments=[experiment.name])
    if len(sel.experiments) < 2:
        return []
    return [configs.Knob(k.component, k.knob, k.context, k.before, k.after, k.file)
            for cs in _changes(session, sel) for k in cs.knob_changes]


# -- notes --------------------------------------------------------------------------------------------


def notes_for(session: Session, *, sel: Selection, run_ids: Sequence[uuid.UUID] | None = None) -> list[NoteRef]:
    """Notes on the compared experiments and runs; with run_ids, only the notes of those runs."""
    if run_ids is None:
        conds = [and_(Note.run_id.is_(None), Note.experiment_id.in_([e.id for e in sel.experiments]))]
        if sel.run_ids:
            conds.append(Note.run_id.in_(sel.run_ids))
    elif run_ids:
        conds = [Note.run_id.in_(list(run_ids))]
    else:
        return []
    names = {e.id: e.name for e in sel.experiments}
    rows = session.scalars(
        select(Note).where(Note.project_id == sel.project.id, or_(*conds)).order_by(Note.created_at, Note.id)
    )
    return [NoteRef(id=n.id, experiment=names.get(n.experiment_id) if n.experiment_id else None,
                    run_id=str(n.run_id) if n.run_id else None, t_start_s=n.t_start_s, t_end_s=n.t_end_s,
                    body_md=n.body_md, created_at=n.created_at) for n in rows]


# -- overlays -------------------------------------------------------------------------------------------


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
        params: dict[str, Any] = {"runs": [r.id for r in runs], "role": role, "source": mk.source,
                                  "metric": mk.metric}
        if mk.label is not None:
            label_sql = "AND s.labels->>:label_key = :label"
            params["label_key"] = "command" if mk.source == "pidstat" else "queue"
            params["label"] = mk.label
        ser = session.execute(
            text(
                f"""SELECT s.run_id, s.stream_id, s.id FROM series s
                    WHERE s.run_id = ANY(CAST(:runs AS uuid[])) AND s.role = :role AND s.source = :source
                      AND s.metric = :metric {label_sql}"""
            ),
            params,
        ).all()
        # Chunks are decoded, summed per second within a host and downsampled in series_service.
        rows = series_service.per_second_lines(
            session, series=[(r[0], r[1], r[2]) for r in ser], origins=origins, max_points=max_points,
            t_start_s=t_start_s, t_end_s=t_end_s)
        stream_ids = sorted({r[1] for r in rows})
        if stream_ids:
            for sid, hostname in session.execute(
                select(Stream.id, Host.hostname).outerjoin(Host, Host.id == Stream.host_id)
                .where(Stream.id.in_(stream_ids))
            ).all():
                hosts[sid] = hostname
    lines: dict[tuple[uuid.UUID, int], OverlayLine] = {}
    for run_id, stream_id, t, v, down in rows:
        lines[(run_id, stream_id)] = OverlayLine(host=hosts.get(stream_id), stream_id=stream_id,
                                                 t=[round(x, 3) for x in t], v=v, downsampled=down)
    label, unit = _metric_label(mk)
    experiments = []
    for e in sel.experiments:
        oruns = []
        for i, r in enumerate(sel.runs.get(e.id, [])):
            if wanted is not None and r.id not in wanted:
                continue
            oruns.append(OverlayRun(run_id=str(r.id), label=_label(r, i), started_at=origins[r.id],
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
    loaded = _load(session, sel)
    return set(loaded.telemetry)

