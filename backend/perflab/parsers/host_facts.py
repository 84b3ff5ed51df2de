"""Host facts from what an engineer ran: ``nproc``, ``getconf _NPROCESSORS_ONLN``, ``lscpu``,
``cat /proc/cpuinfo``, ``/proc/meminfo``, cgroup v1 and v2 files and ``/proc/sys`` values.

Output schema (only the facts the text tells; the names are the agent's host facts)::

    {"command": "cat /sys/fs/cgroup/cpu.max" | null,   # the prompt line's command, or the command option
     "source": "cpu.max" | "nproc" | "lscpu" | "/proc/cpuinfo" | "getconf" | ...,
     "facts": {"cpus_online": 8,                 # lscpu CPU(s), /proc/cpuinfo processors, getconf _NPROCESSORS_ONLN
               "cpus_allowed": 2,                # nproc: the CPUs this process may run on (affinity, cpuset)
               "cpus_configured": 8,             # getconf _NPROCESSORS_CONF, nproc --all
               "cpu_model": "AMD EPYC",
               "threads_per_core": 1, "cores_per_socket": 2, "sockets": 1, "numa_nodes": 1,   # lscpu
               "cpus_online_list": "0,1",       # lscpu's 'On-line CPU(s) list'
               "cgroup_cpu_limit": 1.5 | null,   # CPUs the quota allows; null: no limit ('max', -1)
               "cgroup_cpu_quota_us": 150000 | null, "cgroup_cpu_period_us": 100000,
               "cgroup_cpuset": "45" | "0-3,8-11",
               "cgroup_cpuset_cpus": 1, "cgroup_cpuset_first_cpu": 45,
               "cgroup_memory_max": 2147483648 | null,   # bytes; null: no limit
               "mem_total_kb": 24683624,
               "sysctl": {"net.core.somaxconn": "4096"}},   # cat /proc/sys/...
     "warnings": [...]}

The text may begin with the prompt line that ran the command (``sh-4.2# cat .../cpuset.cpus``, as a
transcript part does), or the caller passes ``command``: a lone ``45`` says nothing without it.
lscpu and /proc/cpuinfo are recognised without a command. ``cat a b`` of several files reads their
values in order. cgroup v1's ``cpu.cfs_quota_us`` and ``cpu.cfs_period_us`` are separate files:
``cgroup_cpu_limit`` is set when both are in the text (or the quota is -1), and ``merge(docs)``
combines the facts of several outputs (a quota from one, its period from another). v1's
"unlimited" memory (9223372036854771712, rounded down to pages) is null.
"""

from __future__ import annotations

from ._common import JSON, ParseError, show, split_lines, to_int
from .transcript import command_kind, prompt

__all__ = ["merge", "parse", "sniff"]

KIND = "host-facts"

METRICS: dict[str, str] = {
    "facts.cpus_online": "CPUs", "facts.cpus_allowed": "CPUs", "facts.cgroup_cpu_limit": "CPUs",
    "facts.cgroup_memory_max": "bytes", "facts.mem_total_kb": "KiB",
}

_UNLIMITED = 1 << 62


def cpu_list(text: str) -> tuple[int, int] | None:
    """'0-3,8-11' -> (8 CPUs, first 0); None when not a CPU list."""
    count, first = 0, None
    for part in text.strip().split(","):
        low, _, high = part.partition("-")
        lo, hi = to_int(low), to_int(high or low)
        if lo is None or hi is None or hi < lo:
            return None
        count += hi - lo + 1
        first = lo if first is None else min(first, lo)
    return (count, first) if first is not None else None


def _limit(quota: int | None, period: int | None) -> float | None:
    if quota is None or quota <= 0 or not period:
        return None
    return round(quota / period, 3)


def _file_fact(name: str, path: str, value: str, facts: JSON, warnings: list[str], n: int) -> None:
    v = value.strip()
    if path.startswith("/proc/sys/"):
        facts.setdefault("sysctl", {})[path[len("/proc/sys/"):].replace("/", ".")] = " ".join(v.split())
    elif name == "cpu.max":
        quota_text, _, period_text = v.partition(" ")
        period = to_int(period_text.strip())
        quota = None if quota_text == "max" else to_int(quota_text)
        if period is None or (quota is None and quota_text != "max"):
            warnings.append(f"line {n}: cpu.max is '<quota|max> <period>', not {show(v)}")
            return
        facts.update(cgroup_cpu_quota_us=quota, cgroup_cpu_period_us=period, cgroup_cpu_limit=_limit(quota, period))
    elif name in ("cpu.cfs_quota_us", "cpu.cfs_period_us"):
        number = to_int(v)
        if number is None:
            warnings.append(f"line {n}: {name} holds a number, not {show(v)}")
            return
        if name == "cpu.cfs_quota_us":
            facts["cgroup_cpu_quota_us"] = None if number < 0 else number
        else:
            facts["cgroup_cpu_period_us"] = number
    elif name.startswith("cpuset."):
        cpus = cpu_list(v)
        if cpus is None:
            warnings.append(f"line {n}: {name} is a CPU list ('0-3,8'), not {show(v)}")
            return
        facts.update(cgroup_cpuset=v, cgroup_cpuset_cpus=cpus[0], cgroup_cpuset_first_cpu=cpus[1])
    elif name in ("memory.max", "memory.limit_in_bytes"):
        number = None if v == "max" else to_int(v)
        if number is None and v != "max":
            warnings.append(f"line {n}: {name} holds bytes or 'max', not {show(v)}")
            return
        facts["cgroup_memory_max"] = None if number is None or number >= _UNLIMITED else number


def _cpu_limit(facts: JSON) -> None:
    if "cgroup_cpu_limit" in facts or "cgroup_cpu_quota_us" not in facts:
        return
    quota = facts["cgroup_cpu_quota_us"]
    if quota is None:
        facts["cgroup_cpu_limit"] = None  # -1: no quota
    elif facts.get("cgroup_cpu_period_us"):
        facts["cgroup_cpu_limit"] = _limit(quota, facts["cgroup_cpu_period_us"])


def _lscpu(lines: list[tuple[int, str]], facts: JSON) -> None:
    keys = {"CPU(s)": "cpus_online", "Thread(s) per core": "threads_per_core", "Core(s) per socket":
            "cores_per_socket", "Socket(s)": "sockets", "NUMA node(s)": "numa_nodes"}
    for _, line in lines:
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            continue
        if key in keys and to_int(value) is not None:
            facts[keys[key]] = to_int(value)
        elif key == "Model name" and "cpu_model" not in facts:
            facts["cpu_model"] = value
        elif key == "On-line CPU(s) list":
            facts["cpus_online_list"] = value


def _cpuinfo(lines: list[tuple[int, str]], facts: JSON) -> None:
    processors = 0
    for _, line in lines:
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep:
            continue
        if key == "processor":
            processors += 1
        elif key in ("model name", "Hardware", "cpu model") and "cpu_model" not in facts:
            facts["cpu_model"] = value.strip()
    if processors:
        facts["cpus_online"] = processors


def parse(text: str, command: str | None = None) -> JSON:
    lines = [(n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip()]
    if lines and command is None:
        p = prompt(lines[0][1])
        if p is not None:
            command = p[1]
            lines = lines[1:]
    elif lines and prompt(lines[0][1]) is not None:
        lines = lines[1:]
    facts: JSON = {}
    warnings: list[str] = []
    source = None
    kind, _, info = command_kind(command) if command else (None, {}, {})
    argv: list[str] = info.get("argv") or []
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if not lines:
        raise ParseError(f"no output of {command!r}" if command else "no host facts: the input is empty", None)
    first_n, first = lines[0]
    if kind == "host-facts" and name in ("nproc", "getconf"):
        value = to_int(first.strip())
        if value is None:
            raise ParseError(f"{name} prints a number of CPUs, not {show(first)}", first_n)
        if name == "nproc":
            facts["cpus_configured" if "--all" in argv else "cpus_allowed"] = value
        else:
            facts["cpus_configured" if "CONF" in (argv[1] if len(argv) > 1 else "") else "cpus_online"] = value
        source = name
    elif kind == "host-facts" and name != "lscpu":
        files = [a for a in argv[1:] if not a.startswith("-")]
        if any(f.endswith("cpuinfo") for f in files):
            _cpuinfo(lines, facts)
            source = "/proc/cpuinfo"
        elif any(f.endswith("meminfo") for f in files):
            for _, line in lines:
                if line.startswith("MemTotal:") and to_int(line.split()[1]) is not None:
                    facts["mem_total_kb"] = to_int(line.split()[1])
            source = "/proc/meminfo"
        else:
            if len(lines) != len(files):
                warnings.append(f"{len(files)} files named, {len(lines)} values printed: read in order")
            for (n, line), path in zip(lines, files, strict=False):
                _file_fact(path.rsplit("/", 1)[-1], path, line, facts, warnings, n)
            source = files[0].rsplit("/", 1)[-1] if len(files) == 1 else "cat"
    elif name == "lscpu" or any(ln.startswith("Architecture:") for _, ln in lines[:3]):
        _lscpu(lines, facts)
        source = "lscpu"
    elif any(ln.startswith("processor") and ":" in ln for _, ln in lines[:3]):
        _cpuinfo(lines, facts)
        source = "/proc/cpuinfo"
    else:
        raise ParseError(
            f"{show(first)} alone says nothing: host facts come from lscpu, /proc/cpuinfo, or a command"
            " shown on a prompt line ($ nproc, # cat .../cpu.max)", first_n)
    _cpu_limit(facts)
    if not facts:
        if warnings:
            raise ParseError(warnings[0].partition(": ")[2] or warnings[0], first_n)
        raise ParseError(f"no host fact in the output of {command or source!r}", first_n)
    return {"command": command, "source": source, "facts": facts, "warnings": warnings}


def merge(docs: list[JSON]) -> JSON:
    """The facts of several host-facts results, later ones winning; a v1 quota and period that came
    from two outputs give ``cgroup_cpu_limit``."""
    facts: JSON = {}
    for doc in docs:
        for key, value in (doc.get("facts") or {}).items():
            if key == "sysctl":
                facts.setdefault("sysctl", {}).update(value)
            else:
                facts[key] = value
    if facts.get("cgroup_cpu_quota_us") is not None and facts.get("cgroup_cpu_period_us"):
        facts["cgroup_cpu_limit"] = _limit(facts["cgroup_cpu_quota_us"], facts["cgroup_cpu_period_us"])
    else:
        _cpu_limit(facts)
    return facts


def sniff(lines: list[str]) -> float:
    head = [ln for ln in lines[:40] if ln.strip()]
    if not head:
        return 0.0
    p = prompt(head[0])
    if p is not None and command_kind(p[1])[0] == "host-facts":
        return 0.9
    if head[0].startswith("Architecture:") and any(ln.startswith("CPU(s):") for ln in head):
        return 0.9
    if head[0].startswith("processor") and head[0].split(":")[0].strip() == "processor":
        return 0.8
    return 0.0
