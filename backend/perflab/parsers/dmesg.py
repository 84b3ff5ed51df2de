"""Kernel log lines (``dmesg``, ``dmesg -T``, ``journalctl -k``, ``/var/log/messages``): the messages that
explain a load test's failures, counted per kind with their first and last time.

Output schema::

    {"lines": 333,                                   # kernel log lines read
     "time_format": "boot" | "wall" | "none",        # [  601.749973] | Jul  8 10:03:53 / ISO / dmesg -T
     "messages": {
        "syn_flood": {"count": 10, "first": "601.749973", "last": "603.821679",
                      "first_line": 2, "last_line": 11,
                      "sample": "TCP: request_sock_TCP: Possible SYN flooding on port 127.0.0.1:23456. Sending cookies.",
                      "ports": {"127.0.0.1:23456": 10}, "action": {"Sending cookies": 10}},
        "conntrack_full": {...}, "tw_bucket_overflow": {...}, "orphans": {...}, "tcp_mem": {...},
        "oom_kill": {..., "processes": {"java": 1}}, "nic_reset": {..., "devices": {"eth0": 2}}},
     "events": [{"line": 2, "time": "601.749973", "kind": "syn_flood", "text": "..."}],  # first 200
     "suppressed": 33491,                            # '__ratelimit: N callbacks suppressed' summed
     "warnings": [...]}

Kinds: ``conntrack_full`` (``nf_conntrack: table full, dropping packet``; the old ``ip_conntrack``),
``syn_flood`` (``Possible SYN flooding on port P. Sending cookies|Dropping request``: a listen queue
overflowed), ``tw_bucket_overflow`` (``TCP: time wait bucket table overflow``: tcp_max_tw_buckets hit),
``orphans`` (``TCP: too many orphaned sockets``), ``tcp_mem`` (``TCP: out of memory -- consider tuning
tcp_mem``), ``oom_kill`` (``Out of memory: Killed process N (comm)`` / ``Kill process``; one per kill),
``nic_reset`` (``NETDEV WATCHDOG: DEV (...): transmit queue N timed out``, ``Detected Tx Unit Hang``,
``Reset adapter``). ``first``/``last`` are the times as printed: seconds since boot for plain dmesg,
the wall-clock text otherwise, null without timestamps. Lines of other messages are only counted.
Rate-limited kernels print ``N callbacks suppressed``: real counts are then higher (``suppressed``).
"""

from __future__ import annotations

import re

from ._common import JSON, ParseError, is_elision, show, split_lines

KIND = "dmesg"

#: counts are kernel log messages
METRICS: dict[str, str] = {"messages.*.count": "messages", "suppressed": "messages"}

# [  601.749973] and [  601.749973][    C1] (printk caller id)
_BOOT = re.compile(r"^\[\s*(\d+\.\d+)\](?:\[\s*[CT]\d+\])?\s?")
# dmesg -T / --ctime: [Mon Nov 23 16:07:18 2026] (localized names are fine: any text up to ']')
_CTIME = re.compile(r"^\[([^\]\d\s][^\]]*\d\d:\d\d:\d\d[^\]]*\d{4})\]\s?")
# syslog / journalctl: 'Jul  8 10:03:53 host kernel: ...' or '2026-04-30T00:22:02+0000 host kernel: ...'
_SYSLOG = re.compile(
    r"^((?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:\d\d:\d\d)|(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*))"
    r"\s+\S+\s+kernel(?:\[\d+\])?:\s?"
)
# dmesg --time-format iso: 2026-11-23T16:07:18,123456+00:00 message
_ISO = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d+[+-]\d\d:?\d\d)\s")
_LEVEL = re.compile(r"^<\d>|^(?:kern|user|daemon)\s*:\s*\w+\s*:\s?")

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("conntrack_full", re.compile(r"(?:nf|ip)_conntrack: table full, dropping packet")),
    (
        "syn_flood",
        re.compile(
            r"[Pp]ossible SYN flooding on port (\S+?)\.\s+(Sending cookies|Dropping request)"
        ),
    ),
    ("tw_bucket_overflow", re.compile(r"time wait bucket table overflow")),
    ("orphans", re.compile(r"too many orphaned sockets")),
    ("tcp_mem", re.compile(r"TCP: out of memory -- consider tuning tcp_mem")),
    ("oom_kill", re.compile(r"(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process \d+ \(([^)]*)\)")),
    (
        "nic_reset",
        re.compile(
            r"NETDEV WATCHDOG: (?:CPU: \d+: )?(\S+?)(?: \([^)]*\))?:? transmit queue \d+ timed out"
            r"|(\S+): Detected Tx Unit Hang|(\S+): Reset adapter"
        ),
    ),
)
_SUPPRESSED = re.compile(r"(\d+) callbacks suppressed")

MAX_EVENTS = 200


def _strip(line: str) -> tuple[str | None, str, str]:
    """(time as printed or None, time format, message)."""
    s = line.strip()
    fmt = "none"
    when: str | None = None
    m = _SYSLOG.match(s)
    if m:
        when, fmt, s = m.group(1), "wall", s[m.end() :]
    else:
        m = _ISO.match(s) or _CTIME.match(s)
        if m:
            when, fmt, s = m.group(1), "wall", s[m.end() :]
    m = _BOOT.match(s)
    if m:
        # syslog lines often carry both: the wall clock is what a reader matches against charts
        if when is None:
            when, fmt = m.group(1), "boot"
        s = s[m.end() :]
    s = _LEVEL.sub("", s, count=1)
    return when, fmt, s


# printk's line limit: a longer "message" is no kernel message, and the patterns stay linear on it
MAX_MESSAGE = 1024


def classify(message: str) -> tuple[str, str | None] | None:
    """(kind, detail) of a kernel message, or None when it is not one findings care about."""
    message = message[:MAX_MESSAGE]
    for kind, pattern in _RULES:
        m = pattern.search(message)
        if m:
            detail = next((g for g in m.groups() if g), None)
            return kind, detail
    return None


def parse(text: str) -> JSON:
    messages: dict[str, JSON] = {}
    events: list[JSON] = []
    warnings: list[str] = []
    formats: dict[str, int] = {}
    suppressed = 0
    nlines = 0
    for n, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        if is_elision(line.strip()):
            warnings.append(f"line {n}: lines left out here ('...'); counts are lower bounds")
            continue
        nlines += 1
        when, fmt, msg = _strip(line[: MAX_MESSAGE + 200])
        formats[fmt] = formats.get(fmt, 0) + 1
        sup = _SUPPRESSED.search(msg[:MAX_MESSAGE])
        if sup:
            suppressed += int(sup.group(1))
            continue
        found = classify(msg)
        if found is None:
            continue
        kind, detail = found
        entry = messages.get(kind)
        if entry is None:
            entry = messages[kind] = {
                "count": 0, "first": when, "last": when, "first_line": n, "last_line": n,
                "sample": msg.strip()[:300],
            }
        entry["count"] += 1
        entry["last"], entry["last_line"] = when, n
        if kind == "syn_flood" and detail is not None:
            ports = entry.setdefault("ports", {})
            ports[detail] = ports.get(detail, 0) + 1
            m = _RULES[1][1].search(msg)
            action = m.group(2) if m else ""
            acts = entry.setdefault("action", {})
            acts[action] = acts.get(action, 0) + 1
        elif kind == "oom_kill" and detail is not None:
            procs = entry.setdefault("processes", {})
            procs[detail] = procs.get(detail, 0) + 1
        elif kind == "nic_reset" and detail is not None:
            devs = entry.setdefault("devices", {})
            devs[detail] = devs.get(detail, 0) + 1
        if len(events) < MAX_EVENTS:
            events.append({"line": n, "time": when, "kind": kind, "text": msg.strip()[:300]})
    if nlines == 0:
        raise ParseError("no kernel log lines: the input is empty", None)
    timed = {k: v for k, v in formats.items() if k != "none"}
    if not messages and not timed:
        first = next((n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip())
        raise ParseError(
            "expected kernel log lines ('[  12.345678] ...', 'Jul  8 10:03:53 host kernel: ...'),"
            f" got {show(first[1])}",
            first[0],
        )
    time_format = max(timed, key=lambda k: timed[k]) if timed else "none"
    if suppressed:
        warnings.append(
            f"the kernel suppressed {suppressed} messages (rate limit): real counts are higher"
        )
    return {
        "lines": nlines,
        "time_format": time_format,
        "messages": messages,
        "events": events,
        "suppressed": suppressed,
        "warnings": warnings[:200],
    }


def sniff(lines: list[str]) -> float:
    good = total = 0
    for line in lines[:100]:
        s = line.strip()[: MAX_MESSAGE + 200]
        if not s:
            continue
        total += 1
        if _BOOT.match(s) or _SYSLOG.match(s) or _CTIME.match(s) or classify(s) is not None or _SUPPRESSED.search(s):
            good += 1
    if total and good >= 1 and good >= 0.8 * total:
        return 0.8
    return 0.0
