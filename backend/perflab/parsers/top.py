"""``top -b`` (batch mode; ``-H`` threads, ``-1`` per CPU): CPU split, load and the busiest tasks per
iteration, and per command over the whole capture.

Output schema::

    {"threads": false,                                     # true for top -H ('Threads:' header)
     "iterations": [{"time": "16:13:55", "load_avg": [6.3, 2.1, 0.79],
                     "tasks": {"total": 141, "running": 13, "sleeping": 128, "stopped": 0, "zombie": 0},
                     "cpu": {"us": 95.7, "sy": 4.3, "ni": 0.0, "id": 0.0, "wa": 0.0, "hi": 0.0, "si": 0.0,
                             "st": 0.0} | null,                       # %Cpu(s) line, percent
                     "cpus": {"0": {...}, "1": {...}},                # -1: one line per CPU
                     "mem_mib": {"total": 24105.1, "free": 21447.3, "used": 1817.4, "buff/cache": 1198.4},
                     "tasks_top": [{"pid": 10608, "user": "root", "command": "pip", "cpu_pct": 23.8,
                                    "mem_pct": 0.5, "state": "R"}]}],   # 20 busiest
     "commands": {"pip": {"samples": 12, "tasks": 8, "cpu_pct_mean": 19.1, "cpu_pct_max": 23.8}},
     "warnings": [...]}

``cpu_pct`` is top's %CPU: 100 is one whole CPU. The first iteration of ``top -b`` averages since the
previous refresh of a fresh process, so it is kept but the per-command means skip it when later
iterations exist. ``commands`` sums the tasks of a command within an iteration, then averages
across iterations (``samples`` iterations; ``tasks`` the most tasks of it seen at once).
Memory is converted to MiB from whatever unit top printed (KiB/MiB/GiB). Columns are found by header
name: fields chosen and moved with ``f`` (COMMAND before %CPU, a PPID column) and wide ``-w`` rows read
the same.
"""

from __future__ import annotations

import re

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float, to_int

KIND = "top"

METRICS: dict[str, str] = {
    "iterations.*.cpu.*": "%",
    "iterations.*.load_avg": "runnable tasks",
    "commands.*.cpu_pct_mean": "% of one CPU",
    "commands.*.cpu_pct_max": "% of one CPU",
}

_HEAD = re.compile(r"^top - (\d\d:\d\d:\d\d) .*load average:\s*(\d+[.,]\d+),?\s+(\d+[.,]\d+),?\s+(\d+[.,]\d+)")
_CPU = re.compile(r"^%?Cpu(\(s\)|\d+)\s*:(.*)$")
_PAIR = re.compile(r"([\d.,]+)\s*([a-z/]+)")
_MEM = re.compile(r"^(KiB|MiB|GiB|TiB) (Mem|Swap)\s*:(.*)$")
_TO_MIB = {"KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0, "TiB": 1024.0 * 1024}
TOP_TASKS = 20


def _num(tok: str) -> float | None:
    return to_float(tok.replace(",", "."))


def parse(text: str) -> JSON:
    iterations: list[JSON] = []
    warnings: list[str] = []
    threads = False
    cur: JSON | None = None
    columns: list[str] | None = None
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s:
            continue
        if is_elision(s):
            warnings.append(f"line {n}: lines left out here ('...'); tasks are missing")
            continue
        m = _HEAD.match(s)
        if m:
            cur = {"time": m.group(1), "load_avg": [_num(m.group(i)) for i in (2, 3, 4)], "tasks": {},
                   "cpu": None, "cpus": {}, "mem_mib": {}, "tasks_top": []}
            iterations.append(cur)
            columns = None
            continue
        if cur is None:
            if first_other is None:
                first_other = (n, line)
            continue
        if s.startswith(("Tasks:", "Threads:")):
            threads = threads or s.startswith("Threads:")
            for value, name in _PAIR.findall(s.split(":", 1)[1]):
                count = to_int(value)
                if count is not None:
                    cur["tasks"][name] = count
            continue
        m = _CPU.match(s)
        if m:
            split = {name: _num(value) for value, name in _PAIR.findall(m.group(2))}
            if m.group(1) == "(s)":
                cur["cpu"] = split
            else:
                cur["cpus"][m.group(1)] = split
            continue
        m = _MEM.match(s)
        if m:
            factor = _TO_MIB[m.group(1)]
            prefix = "" if m.group(2) == "Mem" else "swap_"
            for value, name in _PAIR.findall(m.group(3).replace("avail Mem", "avail")):
                v = _num(value)
                if v is not None:
                    # 'avail Mem' closes the Swap line but is memory
                    cur["mem_mib"][name if name == "avail" else prefix + name] = round(v * factor, 1)
            continue
        tokens = s.split()
        if "PID" in tokens and "COMMAND" in tokens:
            columns = tokens
            continue
        if columns is None:
            warnings.append(f"line {n}: not a top line, ignored: {show(line)}")
            continue
        if len(tokens) < len(columns):
            warnings.append(f"line {n}: short task row, ignored: {show(line)}")
            continue
        # COMMAND may hold spaces (top -c) and need not be last (fields chosen with 'f'); no other
        # column has spaces, so the columns before it are counted from the left, those after from the right.
        at = columns.index("COMMAND")
        end = len(tokens) - (len(columns) - at - 1)
        row = dict(zip(columns[:at], tokens[:at], strict=True))
        row.update(zip(columns[at + 1 :], tokens[end:], strict=True))
        row["COMMAND"] = " ".join(tokens[at:end])
        pid = to_int(row.get("PID", ""))
        cpu = _num(row.get("%CPU", ""))
        if pid is None or cpu is None:
            warnings.append(f"line {n}: PID/%CPU not numbers, ignored: {show(line)}")
            continue
        cur["tasks_top"].append({"pid": pid, "user": row.get("USER"), "command": row["COMMAND"],
                                 "cpu_pct": cpu, "mem_pct": _num(row.get("%MEM", "")), "state": row.get("S")})
    if not iterations:
        if first_other is None:
            raise ParseError("no top output: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected top -b output ('top - HH:MM:SS up ...'), got {show(line)}", n)
    commands: dict[str, JSON] = {}
    use = iterations[1:] if len(iterations) > 1 else iterations
    for it in use:
        per: dict[str, list[float]] = {}
        for t in it["tasks_top"]:
            per.setdefault(t["command"], []).append(t["cpu_pct"])
        for cmd, values in per.items():
            c = commands.setdefault(cmd, {"samples": 0, "tasks": 0, "sum": 0.0, "cpu_pct_max": 0.0})
            c["samples"] += 1
            c["tasks"] = max(c["tasks"], len(values))
            c["sum"] += sum(values)
            c["cpu_pct_max"] = max(c["cpu_pct_max"], max(values))
    for c in commands.values():
        c["cpu_pct_mean"] = round(c.pop("sum") / c["samples"], 2)
    for it in iterations:
        it["tasks_top"] = sorted(it["tasks_top"], key=lambda t: -t["cpu_pct"])[:TOP_TASKS]
    return {"threads": threads, "iterations": iterations, "commands": commands, "warnings": warnings[:200]}


def sniff(lines: list[str]) -> float:
    for line in lines[:10]:
        if _HEAD.match(line.strip()):
            return 0.9
    return 0.0
