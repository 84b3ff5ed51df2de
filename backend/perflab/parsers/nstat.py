"""``nstat`` / ``nstat -az`` kernel SNMP counters (iproute2): since boot, or deltas since nstat's last call.

Output schema::

    {"counters": {"TcpExtListenOverflows": 873, "TcpActiveOpens": 76203, ...},
     "rates": {"TcpExtListenOverflows": 0.0, ...},          # nstat's per-second average column
     "kernel_names": {"TcpExt.ListenOverflows": 873, ...},  # the names netstat-s's "counters" uses
     "warnings": [...]}

Counts are events (segments, connections, drops). Whether they are totals since boot or deltas depends
on nstat's history file: the agent's ``nstat`` collector resets its own history when a run starts, so
the end-of-run output it stores is what happened during the run.
"""

from __future__ import annotations

import re

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float, to_int

KIND = "nstat"

METRICS: dict[str, str] = {"counters.*": "count", "rates.*": "/s"}

_LINE = re.compile(r"^([A-Z][A-Za-z0-9]*)\s+(\d+)(?:\s+(\S+))?\s*$")
_PREFIXES = ("IpExt", "TcpExt", "UdpLite", "Icmp6", "Udp6", "Ip6", "IcmpMsg", "MPTcpExt", "Ip", "Icmp", "Tcp", "Udp")


def kernel_name(name: str) -> str:
    """TcpExtListenOverflows -> TcpExt.ListenOverflows (how /proc/net/netstat and netstat-s name it)."""
    for prefix in _PREFIXES:
        if name.startswith(prefix) and len(name) > len(prefix):
            return f"{prefix}.{name[len(prefix):]}"
    return name


def parse(text: str) -> JSON:
    counters: dict[str, int] = {}
    rates: dict[str, float] = {}
    warnings: list[str] = []
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if is_elision(s):
            warnings.append(f"line {n}: lines left out here ('...'); counters are missing")
            continue
        m = _LINE.match(s)
        value = to_int(m.group(2)) if m else None
        if m is None or value is None:
            if first_other is None:
                first_other = (n, line)
            warnings.append(f"line {n}: not an nstat counter line, ignored: {show(line)}")
            continue
        counters[m.group(1)] = value
        rate = to_float(m.group(3)) if m.group(3) else None
        if rate is not None:
            rates[m.group(1)] = rate
    if not counters:
        if first_other is None:
            raise ParseError("no nstat counters: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected nstat lines ('TcpExtListenOverflows  6233  0.0'), got {show(line)}", n)
    return {"counters": counters, "rates": rates,
            "kernel_names": {kernel_name(k): v for k, v in counters.items()}, "warnings": warnings[:200]}


def sniff(lines: list[str]) -> float:
    head = [ln.strip() for ln in lines[:50] if ln.strip()]
    if not head:
        return 0.0
    good = sum(1 for ln in head if _LINE.match(ln) and ln[:3] in ("Tcp", "Udp", "Ip", "Icm", "IpE", "MPT"))
    return 0.8 if (head[0] == "#kernel" and good) or good >= 0.8 * len(head) else 0.0
