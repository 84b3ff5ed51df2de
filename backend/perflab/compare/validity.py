"""Whether a run's numbers can be trusted: ``invalid`` (error responses or socket errors beyond the
project's thresholds, no requests, a partial stream of the load generator: left out of every median,
interval and verdict unless included on purpose), ``flagged`` (steal, a saturated load generator,
warnings: counted, with the reason shown) or ``ok``.

Invalidity is read from what every run already carries (its wrk headline, status and reasons) and the
project's thresholds, so history and comparisons decide it without loading anything more, and a
threshold edited in the project settings applies to every run at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, Float, and_, cast, exists, func, literal, or_, select

from perflab.compare.loading import Loaded, num
from perflab.compare.schemas import RunWarning
from perflab.projects.models import Project
from perflab.runs.models import Run

State = Literal["ok", "flagged", "invalid"]


@dataclass(frozen=True)
class Thresholds:
    # Percent of requests: at or above, the run is invalid.
    error_responses_pct: float = 1.0
    socket_errors_pct: float = 1.0


def thresholds(project: Project) -> Thresholds:
    stored = project.validity or {}
    default = Thresholds()
    return Thresholds(
        error_responses_pct=float(stored.get("error_responses_pct", default.error_responses_pct)),
        socket_errors_pct=float(stored.get("socket_errors_pct", default.socket_errors_pct)),
    )


def _pct(part: float, whole: float) -> str:
    return f"{part / whole * 100:.3g}%" if whole else "all"


def invalid_reasons(run: Run, th: Thresholds, *, wrk: dict[str, Any] | None = None,
                    load_role: str = "loadgen") -> list[str]:
    """Why this run's load numbers are not a measurement (empty: they are). ``wrk``: the full wrk
    summary when loaded; the run's headline (always at hand) otherwise."""
    out: list[str] = []
    head = run.headline or {}
    has_load = wrk is not None or "requests_per_sec" in head
    if has_load:
        if wrk is not None:
            requests = num(wrk.get("requests"))
            non2xx = num(wrk.get("non_2xx_3xx")) or 0.0
            sock = sum(num(v) or 0.0 for v in (wrk.get("socket_errors") or {}).values())
        else:
            requests = num(head.get("requests"))
            non2xx = num(head.get("non_2xx_3xx")) or 0.0
            sock = num(head.get("socket_errors")) or 0.0
        if requests is not None and requests <= 0:
            out.append("no requests completed")
        elif requests:
            if non2xx and non2xx / requests * 100 >= th.error_responses_pct:
                out.append(f"{non2xx:.0f} of {requests:.0f} responses were not 2xx/3xx ({_pct(non2xx, requests)};"
                           f" limit {th.error_responses_pct:g}%)")
            if sock and sock / requests * 100 >= th.socket_errors_pct:
                out.append(f"{sock:.0f} socket errors for {requests:.0f} requests ({_pct(sock, requests)};"
                           f" limit {th.socket_errors_pct:g}%)")
    if run.status == "partial":
        prefix = f"{load_role}/"
        missing = f"no host with role {load_role} joined the run"
        cut = [r for r in run.status_reasons or [] if r.startswith(prefix) or r == missing]
        if cut:
            out.append(f"the load generator's output is incomplete: {cut[0]}")
    return out

STEAL_LIMIT_PCT = 5.0
LOADGEN_IDLE_LIMIT_PCT = 5.0
WRK_CPU_LIMIT_PCT_PER_THREAD = 90.0


def run_warnings(run: Run, loaded: Loaded) -> list[RunWarning]:
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
        non2xx = int(num(wrk.get("non_2xx_3xx")) or 0)
        if non2xx:
            out.append(RunWarning(kind="non_2xx", message=f"{non2xx} non-2xx/3xx responses"))
        sock = {k: int(num(v) or 0) for k, v in (wrk.get("socket_errors") or {}).items()}
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
            threads = int(num(wrk.get("threads")) or 1)
            if value >= WRK_CPU_LIMIT_PCT_PER_THREAD * threads:
                out.append(RunWarning(kind="loadgen_saturated",
                                      message=f"load generator saturated: wrk used {value:.0f}% CPU with {threads} "
                                              "threads"))
    return out


def invalid_sql(th: Thresholds) -> ColumnElement[bool]:
    """``invalid_reasons(run, th) != []`` as SQL over the run's headline, for lists that aggregate
    many runs (history medians) without loading them."""
    head = Run.headline
    requests = cast(head["requests"].astext, Float)
    non2xx = func.coalesce(cast(head["non_2xx_3xx"].astext, Float), 0.0)
    sock = func.coalesce(cast(head["socket_errors"].astext, Float), 0.0)
    reasons = func.jsonb_array_elements_text(Run.status_reasons).table_valued("value").alias("reason")
    load_cut = exists(select(literal(1)).select_from(reasons).where(or_(
        reasons.c.value.like("loadgen/%"), reasons.c.value == "no host with role loadgen joined the run")))
    return or_(
        requests <= 0,
        and_(requests > 0, non2xx * 100.0 / requests >= th.error_responses_pct),
        and_(requests > 0, sock * 100.0 / requests >= th.socket_errors_pct),
        and_(Run.status == "partial", load_cut),
    )
