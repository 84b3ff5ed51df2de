"""Names for tool outputs that are not one of our kinds, so a refusal can say what a text looks
like ("this is vmstat -d's disk table") instead of only what it is not."""

from __future__ import annotations

# (test on the first non-blank lines, name); the first match wins
_SIGNS: tuple[tuple[str, str], ...] = (
    ("disk- ", "vmstat -d (disk statistics), not vmstat's memory/CPU table"),
    ("K total memory", "vmstat -s (event counters and memory totals)"),
    ("Cache  ", "vmstat -m or slabinfo (slab caches)"),
    (" disks", "vmstat -D (disk summary)"),
    ("reads   read sectors  writes    requested writes", "vmstat -p (partition statistics)"),
    ("Device ", "iostat (block device statistics)"),
    ("avg-cpu:", "iostat (CPU and device statistics)"),
    ("%steal", "mpstat or sar -u (per-CPU utilisation)"),
    ("top - ", "top (batch mode)"),
    ("Mem:", "free (memory totals)"),
    ("Kernel Interface table", "netstat -i (interface counters)"),
    ("Active Internet connections", "netstat -a (socket list)"),
    ("State ", "ss (socket list), not ss -s's summary"),
    ("Netid ", "ss (socket list), not ss -s's summary"),
    ("kB_rd/s", "pidstat -d (I/O per process)"),
)


def looks_like(lines: list[str]) -> str | None:
    """What the first lines of a text look like, when it is a known output of another tool."""
    head = [ln for ln in lines[:20] if ln.strip()][:5]
    for line in head:
        for sign, name in _SIGNS:
            if sign in line:
                return name
    return None
