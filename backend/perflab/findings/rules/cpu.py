"""CPU time the workload gets: hypervisor steal, nginx workers against the container's CPUs."""

from __future__ import annotations

import math

from perflab.findings.rules.base import Finding, RunData, make_finding, rule, series_evidence

# -- steal -------------------------------------------------------------------------------------------------

STEAL_INFO_PCT = 5.0
STEAL_WARN_PCT = 20.0


@rule(
    id="cpu-steal",
    title="The hypervisor steals CPU time",
    reads="vmstat st steady-state mean",
    thresholds=f"mean st >= {STEAL_INFO_PCT:.0f}% (info), >= {STEAL_WARN_PCT:.0f}% (warning)",
    suggests="nothing in the system under test: repeat the run, or use dedicated CPUs",
    false_positives="short runs where one noisy second dominates the mean",
    docs="https://man7.org/linux/man-pages/man8/vmstat.8.html",
)
def cpu_steal(data: RunData) -> list[Finding]:
    out = []
    for s in data.series:
        if s["source"] != "vmstat" or s["metric"] != "st":
            continue
        mean = (s.get("stats") or {}).get("mean")
        if mean is None or mean < STEAL_INFO_PCT:
            continue
        sev = "warning" if mean >= STEAL_WARN_PCT else "info"
        out.append(make_finding(data, "cpu-steal", sev,
                            f"{s['role']}: the hypervisor stole {mean:.0f}% of CPU time: this run is noisier than others",
                            [series_evidence(s, float(mean), "steal (vmstat st)")], None))
    return out


# -- worker_processes vs the cgroup's CPUs --------------------------------------------------------------------


@rule(
    id="workers-above-quota",
    title="nginx starts more workers than the container's CPUs",
    reads="nginx.conf snapshot (worker_processes), host facts (cgroup_cpu_limit, cpus_allowed, cpus_online)",
    thresholds="worker_processes (auto = the host's CPUs) above the cgroup CPU limit rounded up",
    suggests="nginx worker_processes: the cgroup CPU limit rounded up",
    false_positives="nginx built with cgroup-aware CPU detection; workers mostly idle on I/O",
    docs="https://nginx.org/en/docs/ngx_core_module.html#worker_processes",
)
def workers_above_quota(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    if nginx is None:
        return []
    role, name, directives = nginx
    value = next((v for k, v in directives.items() if k[1] == "worker_processes"), "1")
    facts = data.facts.get(role) or next(iter(data.facts.values()), None)
    if not facts:
        return []
    limit = facts.get("cgroup_cpu_limit")
    allowed = facts.get("cpus_allowed")
    cap = math.ceil(float(limit)) if limit else (int(allowed) if allowed else None)
    if cap is None:
        return []
    workers = int(facts.get("cpus_online") or 0) if value.strip() == "auto" else (
        int(value) if value.strip().isdigit() else 0)
    if workers <= cap:
        return []
    ev = [{"kind": "config", "label": "worker_processes", "value": value,
           "ref": {"file": name, "role": role, "directive": "worker_processes"}},
          {"kind": "summary", "label": "CPUs the process may use",
           "value": f"cgroup limit {limit}, cpus allowed {allowed}, host CPUs {facts.get('cpus_online')}",
           "ref": {"facts": role}}]
    return [make_finding(data, "workers-above-quota", "warning",
                     f"worker_processes {value} starts {workers} workers but the cgroup allows {cap} CPU(s)",
                     ev, {"component": "nginx", "knob": "worker_processes", "from": value, "to": str(cap)})]
