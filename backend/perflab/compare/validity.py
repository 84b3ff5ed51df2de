"""Why a run's numbers deserve suspicion: partial or failed runs, error responses, steal, a saturated load generator."""

from __future__ import annotations

from perflab.compare.loading import Loaded, num
from perflab.compare.schemas import RunWarning
from perflab.runs.models import Run

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
