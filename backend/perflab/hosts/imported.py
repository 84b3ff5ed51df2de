"""Host facts from files an engineer saved: cgroup v1/v2 files, `nproc`, `getconf _NPROCESSORS_ONLN`,
`lscpu`, /proc/cpuinfo. They become the same keys the agent's hello carries (``cpus_online``,
``cpus_allowed``, ``cgroup_cpu_limit``, ``cgroup_cpuset``, ``cgroup_memory_max``, ``cgroup_version``,
``cpu_model``), so the rules read an imported run's facts exactly like an agent's.

A cgroup file is one number or list with nothing in it that says what it is: its name (the file's, or
the path a transcript's ``cat`` named) does. ``lscpu`` and /proc/cpuinfo say what they are, so they are
also recognised by content. Pure functions; time linear in the text.
"""

from __future__ import annotations

import re
from typing import Any

# v1 writes "no limit" as the largest page-aligned 64-bit value.
V1_MEMORY_UNLIMITED = 1 << 62
_SUFFIXES = (".txt", ".out", ".log")
_CPU_LIST = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")
_LSCPU = re.compile(r"^CPU\(s\):\s+\d+\s*$", re.MULTILINE)
_CPUINFO = re.compile(r"^processor\s*:\s*\d+\s*$", re.MULTILINE)

Facts = dict[str, Any]


def parse_cpu_list(text: str) -> list[int] | None:
    """CPU numbers of a kernel CPU list ("0-3,8-11"); None when the text is not one."""
    text = text.strip()
    if not _CPU_LIST.match(text):
        return None
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        first, last = int(lo), int(hi or lo)
        if last < first or last - first > 65536:
            return None
        out.extend(range(first, last + 1))
    return out


def _base(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip().lower()
    for suffix in _SUFFIXES:
        base = base.removesuffix(suffix)
    return base


def _single(text: str) -> str | None:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0] if len(lines) == 1 else None


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.lstrip("-").isdigit() else None


def from_file(name: str, text: str) -> Facts | None:
    """The facts one file (or one ``cat``/command output) holds; None when it is none of these."""
    base = _base(name)
    one = _single(text)
    if base == "cpu.max" and one is not None:
        fields = one.split()
        if len(fields) == 2 and fields[1].isdigit() and int(fields[1]) > 0:
            if fields[0] == "max":
                return {"cgroup_version": 2, "cgroup_cpu_limit": None, "cgroup_cpu_period_us": int(fields[1])}
            if fields[0].isdigit():
                return {"cgroup_version": 2, "cgroup_cpu_limit": round(int(fields[0]) / int(fields[1]), 3),
                        "cgroup_cpu_quota_us": int(fields[0]), "cgroup_cpu_period_us": int(fields[1])}
        return None
    if base == "cpu.cfs_quota_us" and _int(one) is not None:
        quota = _int(one)
        return {"cgroup_version": 1, "cgroup_cpu_quota_us": quota if quota and quota > 0 else None}
    if base == "cpu.cfs_period_us" and _int(one):
        return {"cgroup_version": 1, "cgroup_cpu_period_us": _int(one)}
    if base in ("cpuset.cpus", "cpuset.cpus.effective", "cpuset.effective_cpus") and one is not None:
        cpus = parse_cpu_list(one)
        if cpus is None:
            return None
        version = 2 if base == "cpuset.cpus.effective" else 1 if base == "cpuset.effective_cpus" else None
        facts: Facts = {"cgroup_cpuset": one, "cpus_allowed": len(cpus)}
        return facts | ({"cgroup_version": version} if version else {})
    if base in ("memory.max", "memory.limit_in_bytes") and one is not None:
        if one == "max":
            return {"cgroup_version": 2, "cgroup_memory_max": None}
        value = _int(one)
        if value is None or value < 0:
            return None
        return {"cgroup_version": 2 if base == "memory.max" else 1,
                "cgroup_memory_max": value if value < V1_MEMORY_UNLIMITED else None}
    if base == "nproc" and _int(one):
        # nproc prints the CPUs this process may run on (its affinity), not the host's.
        return {"cpus_allowed": _int(one)}
    if base.startswith("getconf") or base == "_nprocessors_onln":
        if _int(one):
            return {"cpus_online": _int(one)}
        return None
    if base == "lscpu" or _LSCPU.search(text[:65536]):
        return _lscpu(text)
    if base == "cpuinfo" or _CPUINFO.search(text[:65536]):
        return _cpuinfo(text)
    return None


def _lscpu(text: str) -> Facts | None:
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    online = parse_cpu_list(fields.get("On-line CPU(s) list", ""))
    count = len(online) if online is not None else _int(fields.get("CPU(s)"))
    if not count:
        return None
    facts: Facts = {"cpus_online": count}
    if fields.get("Model name"):
        facts["cpu_model"] = fields["Model name"]
    return facts


def _cpuinfo(text: str) -> Facts | None:
    count = 0
    model = None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep:
            continue
        if key == "processor" and value.strip().isdigit():
            count += 1
        elif key == "model name" and model is None:
            model = value.strip()
    if not count:
        return None
    return {"cpus_online": count} | ({"cpu_model": model} if model else {})


def merge(parts: list[Facts]) -> Facts:
    """One host's facts from several files: v1's quota and period make the CPU limit together, and the
    agent's ``cpus_effective`` (affinity capped by the quota) follows from the rest."""
    out: Facts = {}
    for p in parts:
        for k, v in p.items():
            if v is not None or k not in out:
                out[k] = v
    quota, period = out.pop("cgroup_cpu_quota_us", None), out.pop("cgroup_cpu_period_us", None)
    if "cgroup_cpu_limit" not in out and quota is not None:
        # cpu.cfs_period_us defaults to 100 ms: a quota alone is read against it.
        out["cgroup_cpu_limit"] = round(quota / (period or 100000), 3)
    allowed, limit = out.get("cpus_allowed"), out.get("cgroup_cpu_limit")
    if allowed is not None:
        out["cpus_effective"] = allowed if limit is None else max(1, min(allowed, -int(-limit // 1)))
    return out
