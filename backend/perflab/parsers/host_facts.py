"""Host facts from what an engineer ran or saved: ``nproc``, ``getconf _NPROCESSORS_ONLN``, ``lscpu``,
``cat /proc/cpuinfo``, ``/proc/meminfo``, cgroup v1 and v2 files and ``/proc/sys`` values.

This is perflab's one reader of these outputs: an import's files and transcript parts come here, and
the facts carry the keys of the agent's hello, so the findings rules read an imported host exactly
like an agent's.

Output schema (only the facts the text tells)::

    {"command": "cat /sys/fs/cgroup/cpu.max" | null,   # the prompt line's command, or the command option
     "source": "cpu.max" | "nproc" | "lscpu" | "/proc/cpuinfo" | "getconf" | ...,
     "facts": {"cpus_online": 8,                 # lscpu's On-line CPU(s) list, /proc/cpuinfo processors,
                                                 # getconf _NPROCESSORS_ONLN (what worker_processes auto reads)
               "cpus_allowed": 2,                # nproc, or a cpuset's size: the CPUs this process may run on
               "cpu_model": "AMD EPYC",
               "cgroup_version": 1 | 2,          # when the file's name tells (cpu.max v2, cpu.cfs_quota_us v1...)
               "cgroup_cpu_limit": 1.5 | null,   # CPUs the quota allows; null: no limit ('max', -1)
               "cgroup_cpu_quota_us": 150000 | null, "cgroup_cpu_period_us": 100000,
               "cgroup_cpuset": "45" | "0-3,8-11",
               "cgroup_memory_max": 2147483648 | null,   # bytes; null: no limit
               "mem_total_kb": 24683624},
     "sysctl": {"net.core.somaxconn": "4096"},   # cat /proc/sys/... (present only then)
     "warnings": [...]}

The text may begin with the prompt line that ran the command (``sh-4.2# cat .../cpuset.cpus``, as a
transcript part does), or the caller passes ``command``, or ``file``: the name a saved output was
given (``cpu.max``, ``nproc.txt``, ``getconf_NPROCESSORS_ONLN``) says what it holds. A lone ``45``
says nothing without one of them. lscpu and /proc/cpuinfo are recognised without a command.
``cat a b`` of several files reads their values in order. cgroup v1's ``cpu.cfs_quota_us`` and
``cpu.cfs_period_us`` are separate files: ``cgroup_cpu_limit`` is set when both are in the text (or
the quota is -1), and ``merge(facts)`` combines the facts of several outputs of one host (a quota
from one, its period from another; the agent's ``cpus_effective``). v1's "unlimited" memory
(9223372036854771712, rounded down to pages) is null.
"""

from __future__ import annotations

from ._common import JSON, ParseError, show, split_lines, to_int
from .transcript import HOST_FACT_FILES, command_kind, prompt

__all__ = ["cpu_list", "merge", "parse", "parse_cpu_list", "sniff"]

KIND = "host-facts"

METRICS: dict[str, str] = {
    "facts.cpus_online": "CPUs", "facts.cpus_allowed": "CPUs", "facts.cgroup_cpu_limit": "CPUs",
    "facts.cgroup_memory_max": "bytes", "facts.mem_total_kb": "KiB",
}

# v1 writes "no limit" as the largest page-aligned 64-bit value.
_UNLIMITED = 1 << 62
# A CPU range wider than this is no kernel's CPU list (it caps how much a hostile '0-99999999' costs).
_MAX_RANGE = 65536
# The cgroup version a file's name tells (cpuset.cpus and memory.max-like names exist in one only).
_VERSION = {"cpu.max": 2, "cpuset.cpus.effective": 2, "memory.max": 2, "cpu.cfs_quota_us": 1,
            "cpu.cfs_period_us": 1, "cpuset.effective_cpus": 1, "memory.limit_in_bytes": 1}
_SUFFIXES = (".txt", ".out", ".log")


def parse_cpu_list(text: str) -> list[int] | None:
    """CPU numbers of a kernel CPU list ("0-3,8-11" -> [0, 1, 2, 3, 8, 9, 10, 11]); None when the text is
    not one."""
    out: list[int] = []
    for part in text.strip().split(","):
        low, _, high = part.partition("-")
        lo, hi = to_int(low), to_int(high or low)
        if lo is None or hi is None or lo < 0 or hi < lo or hi - lo > _MAX_RANGE or not low.isdigit():
            return None
        out.extend(range(lo, hi + 1))
    return out or None


def cpu_list(text: str) -> tuple[int, int] | None:
    """'0-3,8-11' -> (8 CPUs, first 0); None when not a CPU list."""
    cpus = parse_cpu_list(text)
    return (len(cpus), min(cpus)) if cpus else None


def _limit(quota: int | None, period: int | None) -> float | None:
    if quota is None or quota <= 0 or not period:
        return None
    return round(quota / period, 3)


def _file_fact(name: str, path: str, value: str, doc: JSON, warnings: list[str], n: int) -> None:
    v = value.strip()
    facts = doc["facts"]
    if name in _VERSION:
        facts["cgroup_version"] = _VERSION[name]
    if path.startswith("/proc/sys/"):
        doc.setdefault("sysctl", {})[path[len("/proc/sys/"):].replace("/", ".")] = " ".join(v.split())
    elif name == "cpu.max":
        quota_text, _, period_text = v.partition(" ")
        period = to_int(period_text.strip())
        quota = None if quota_text == "max" else to_int(quota_text)
        if not period or (quota is None and quota_text != "max"):
            warnings.append(f"line {n}: cpu.max is '<quota|max> <period>', not {show(v)}")
            return
        facts.update(cgroup_cpu_quota_us=quota, cgroup_cpu_period_us=period, cgroup_cpu_limit=_limit(quota, period))
    elif name in ("cpu.cfs_quota_us", "cpu.cfs_period_us"):
        number = to_int(v)
        if number is None or (name == "cpu.cfs_period_us" and number <= 0):
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
        # A process in the cpuset may run on these CPUs only: what the agent's sched_getaffinity() counts.
        facts.update(cgroup_cpuset=v, cpus_allowed=cpus[0])
    elif name in ("memory.max", "memory.limit_in_bytes"):
        number = None if v == "max" else to_int(v)
        if (number is None and v != "max") or (number is not None and number < 0):
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
    fields: dict[str, str] = {}
    for _, line in lines:
        key, sep, value = line.partition(":")
        if sep and key.strip() and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    # The online list is what the agent reads (/sys/devices/system/cpu/online); CPU(s) counts offline ones too.
    online = parse_cpu_list(fields.get("On-line CPU(s) list", ""))
    count = len(online) if online else to_int(fields.get("CPU(s)", ""))
    if count:
        facts["cpus_online"] = count
    if fields.get("Model name"):
        facts["cpu_model"] = fields["Model name"]


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


def _file_command(file: str) -> str | None:
    """The command a saved output's name stands for: 'cpu.max' -> 'cat cpu.max', 'nproc.txt' -> 'nproc'."""
    base = file.replace("\\", "/").rsplit("/", 1)[-1].strip().lower()
    for suffix in _SUFFIXES:
        base = base.removesuffix(suffix)
    if base in HOST_FACT_FILES:
        return f"cat {base}"
    if base in ("nproc", "lscpu"):
        return base
    if base.startswith("getconf") or base == "_nprocessors_onln":
        return "getconf _NPROCESSORS_ONLN"
    return None


def parse(text: str, command: str | None = None, file: str | None = None) -> JSON:
    lines = [(n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip()]
    if lines and prompt(lines[0][1]) is not None:
        if command is None:
            command = prompt(lines[0][1])[1]  # type: ignore[index]
        lines = lines[1:]
    if command is None and file:
        command = _file_command(file)
    doc: JSON = {"command": command, "source": None, "facts": {}}
    facts: JSON = doc["facts"]
    warnings: list[str] = []
    kind, _, info = command_kind(command) if command else (None, {}, {})
    argv: list[str] = info.get("argv") or []
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if not lines:
        raise ParseError(f"no output of {command!r}" if command else "no host facts: the input is empty", None)
    first_n, first = lines[0]
    if kind == "host-facts" and name in ("nproc", "getconf"):
        value = to_int(first.strip())
        if value is None or value <= 0:
            raise ParseError(f"{name} prints a number of CPUs, not {show(first)}", first_n)
        # nproc --all and _NPROCESSORS_CONF count CPUs installed, offline ones too: no fact the agent has.
        if name == "nproc" and "--all" not in argv:
            facts["cpus_allowed"] = value
        elif name == "getconf" and "CONF" not in (argv[1] if len(argv) > 1 else ""):
            facts["cpus_online"] = value
        doc["source"] = name
    elif kind == "host-facts" and name != "lscpu":
        files = [a for a in argv[1:] if not a.startswith("-")]
        if any(f.endswith("cpuinfo") for f in files):
            _cpuinfo(lines, facts)
            doc["source"] = "/proc/cpuinfo"
        elif any(f.endswith("meminfo") for f in files):
            for _, line in lines:
                if line.startswith("MemTotal:") and len(line.split()) > 1 and to_int(line.split()[1]) is not None:
                    facts["mem_total_kb"] = to_int(line.split()[1])
            doc["source"] = "/proc/meminfo"
        else:
            if len(lines) != len(files):
                warnings.append(f"{len(files)} files named, {len(lines)} values printed: read in order")
            for (n, line), path in zip(lines, files, strict=False):
                _file_fact(path.rsplit("/", 1)[-1], path, line, doc, warnings, n)
            doc["source"] = files[0].rsplit("/", 1)[-1] if len(files) == 1 else "cat"
    elif name == "lscpu" or any(ln.startswith("Architecture:") for _, ln in lines[:3]):
        _lscpu(lines, facts)
        doc["source"] = "lscpu"
    elif any(ln.startswith("processor") and ":" in ln for _, ln in lines[:3]):
        _cpuinfo(lines, facts)
        doc["source"] = "/proc/cpuinfo"
    else:
        raise ParseError(
            f"{show(first)} alone says nothing: host facts come from lscpu, /proc/cpuinfo, or a command"
            " shown on a prompt line ($ nproc, # cat .../cpu.max)", first_n)
    _cpu_limit(facts)
    if not facts and not doc.get("sysctl"):
        if warnings:
            raise ParseError(warnings[-1].partition(": ")[2] or warnings[-1], first_n)
        raise ParseError(f"no host fact in the output of {command or doc['source']!r}", first_n)
    doc["warnings"] = warnings
    return doc


def merge(parts: list[JSON]) -> JSON:
    """One host's facts from the ``facts`` of several outputs, in order: a later value wins unless it is
    unknown (null) where an earlier one was known; a v1 quota and period that came from two outputs give
    ``cgroup_cpu_limit``, and the agent's ``cpus_effective`` (the affinity capped by the quota rounded up)
    follows from the rest."""
    out: JSON = {}
    for facts in parts:
        for key, value in facts.items():
            if value is not None or key not in out:
                out[key] = value
    quota, period = out.get("cgroup_cpu_quota_us"), out.get("cgroup_cpu_period_us")
    if quota is not None and period:
        out["cgroup_cpu_limit"] = _limit(quota, period)
    elif "cgroup_cpu_quota_us" in out and quota is None:
        out["cgroup_cpu_limit"] = None  # v1's -1: no quota
    allowed, limit = out.get("cpus_allowed"), out.get("cgroup_cpu_limit")
    if allowed is not None:
        out["cpus_effective"] = allowed if limit is None else max(1, min(int(allowed), -int(-float(limit) // 1)))
    return out


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

