"""nginx workers against the CPUs they may use: fewer workers than CPUs on a busy proxy, and
`worker_cpu_affinity auto` in a cpuset that does not start at CPU 0 (the binding fails).

Facts come from the agent's hello or from an import's cgroup files, `nproc`, `lscpu` (same keys)."""

from __future__ import annotations

import math
from typing import Any

from perflab.findings.rules.base import Evidence, Finding, RunData, make_finding, rule
from perflab.parsers.host_facts import parse_cpu_list

BUSY_WORKER_PCT = 80.0


def usable_cpus(facts: dict[str, Any]) -> int | None:
    """CPUs a process on this host can keep busy: its affinity (cpuset, nproc) capped by the CPU quota
    rounded up, else the host's online CPUs."""
    if facts.get("cpus_effective"):
        return int(facts["cpus_effective"])
    allowed, limit = facts.get("cpus_allowed"), facts.get("cgroup_cpu_limit")
    caps = [int(x) for x in (allowed, math.ceil(float(limit)) if limit else None, facts.get("cpus_online")) if x]
    return min(caps[:2]) if caps[:2] else (caps[0] if caps else None)


def _facts_evidence(role: str, facts: dict[str, Any]) -> Evidence:
    shown = [f"{k} {facts[k]}" for k in ("cpus_online", "cpus_allowed", "cgroup_cpu_limit", "cgroup_cpuset")
             if facts.get(k) is not None]
    return {"kind": "summary", "label": f"CPUs of the host ({role})", "value": ", ".join(shown) or "(none)",
            "ref": {"facts": role}}


def _busy_workers(data: RunData) -> tuple[list[float], str, str] | None:
    """nginx workers' CPU% (pidstat averages or top), the summary kind and role."""
    for role, pa in data.all("pidstat-averages"):
        cpus = [float(a.get("cpu_pct") or 0) for a in pa.get("averages") or []
                if str(a.get("command") or "").startswith("nginx") and not a.get("tid")]
        if cpus:
            return cpus, "pidstat-averages", role
    for role, top in data.all("top"):
        cmd = (top.get("commands") or {}).get("nginx")
        if cmd and cmd.get("cpu_pct_mean") is not None:
            return [float(cmd["cpu_pct_mean"])], "top", role
    return None


@rule(
    id="workers-below-cpus",
    title="nginx runs fewer workers than the CPUs it may use, and they are busy",
    reads="nginx.conf snapshot (worker_processes), host facts (cpus_online, cpus_allowed, cgroup_cpu_limit; "
          "agent or imported cgroup files/nproc/lscpu), nginx workers' CPU from pidstat averages or top",
    thresholds=f"a numeric worker_processes below the usable CPUs (affinity capped by the quota rounded up), "
               f"and the workers' mean CPU >= {BUSY_WORKER_PCT:.0f}% of one CPU each",
    suggests="nginx worker_processes: the usable CPUs (or `auto` when no cgroup limits them)",
    false_positives="a host shared on purpose with the upstream or the load generator; pidstat of a "
                    "different nginx than the one measured",
    docs="https://nginx.org/en/docs/ngx_core_module.html#worker_processes",
)
def workers_below_cpus(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    if nginx is None:
        return []
    role, name, _ = nginx
    value = (data.nginx_values("worker_processes") or ["1"])[0].strip()
    if not value.isdigit():
        return []
    found = data.role_facts(role)
    if found is None:
        return []
    cpus = usable_cpus(found[1])
    workers = int(value)
    busy = _busy_workers(data)
    if cpus is None or workers >= cpus or busy is None:
        return []
    loads, kind, prole = busy
    mean = sum(loads) / len(loads)
    if mean < BUSY_WORKER_PCT:
        return []
    limited = found[1].get("cgroup_cpu_limit") or (found[1].get("cpus_allowed") or 0) < (found[1].get("cpus_online") or 0)
    ev = [{"kind": "config", "label": "worker_processes", "value": value,
           "ref": {"file": name, "role": role, "directive": "worker_processes"}},
          _facts_evidence(found[0], found[1]),
          {"kind": "process", "label": f"nginx workers' CPU ({kind}, {prole})",
           "value": f"mean {mean:.0f}% over {len(loads)} process(es)", "ref": {"summary": kind, "role": prole,
                                                                              "command": "nginx"}}]
    return [make_finding(data, "workers-below-cpus", "warning",
                         f"worker_processes {value} keeps {workers} worker(s) at {mean:.0f}% CPU while {cpus} CPUs "
                         "are usable: the proxy is CPU-bound on too few workers",
                         ev, {"component": "nginx", "knob": "worker_processes", "from": value,
                              "to": str(cpus) if limited else "auto"})]


def _mask(cpus: list[int]) -> str:
    """nginx's affinity bitmask: CPU 0 is the rightmost digit."""
    return "".join("1" if c in set(cpus) else "0" for c in range(max(cpus), -1, -1))


@rule(
    id="worker-affinity-cpuset",
    title="worker_cpu_affinity auto binds workers to CPUs outside the cpuset",
    reads="nginx.conf snapshot (worker_cpu_affinity, worker_processes), host facts (cgroup_cpuset from "
          "cpuset.cpus(.effective), cpus_online; agent or imported)",
    thresholds="worker_cpu_affinity auto without a mask, and one of the CPUs nginx binds its workers to "
               "(CPU 0, 1, ... one per worker) is not in the cpuset: nginx logs `sched_setaffinity() failed "
               "(22: Invalid argument)` and that worker runs unbound",
    suggests="nginx worker_cpu_affinity: `auto` followed by the cpuset's mask (e.g. `auto 10` for cpuset 1)",
    false_positives="a cpuset read on another host than nginx's",
    docs="https://nginx.org/en/docs/ngx_core_module.html#worker_cpu_affinity",
)
def worker_affinity_cpuset(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    if nginx is None:
        return []
    role, name, _ = nginx
    affinity = (data.nginx_values("worker_cpu_affinity") or [""])[0].split()
    if affinity != ["auto"]:
        return []  # no affinity, explicit masks, or `auto MASK`: nginx binds inside what it was given
    found = data.role_facts(role)
    cpuset = parse_cpu_list(str(found[1].get("cgroup_cpuset") or "")) if found else None
    if found is None or not cpuset:
        return []
    value = (data.nginx_values("worker_processes") or ["1"])[0].strip()
    workers = (int(found[1].get("cpus_online") or len(cpuset)) if value == "auto"
               else int(value) if value.isdigit() else 1)
    # nginx's auto walks CPUs 0, 1, 2... (of all CPUs when no mask is given), one per worker.
    outside = [c for c in range(workers) if c not in set(cpuset)]
    if not outside:
        return []
    ev = [{"kind": "config", "label": "worker_cpu_affinity", "value": "auto",
           "ref": {"file": name, "role": role, "directive": "worker_cpu_affinity"}},
          {"kind": "config", "label": "worker_processes", "value": value,
           "ref": {"file": name, "role": role, "directive": "worker_processes"}},
          _facts_evidence(found[0], found[1])]
    shown = ", ".join(f"#{c}" for c in outside[:8]) + (" ..." if len(outside) > 8 else "")
    return [make_finding(data, "worker-affinity-cpuset", "warning",
                         f"worker_cpu_affinity auto binds workers to CPU {shown}, outside the cpuset "
                         f"{found[1]['cgroup_cpuset']}: sched_setaffinity() fails and those workers run unbound",
                         ev, {"component": "nginx", "knob": "worker_cpu_affinity", "from": "auto",
                              "to": f"auto {_mask(cpuset)}"})]
