"""``netstat -s`` (net-tools) protocol statistics.

Output schema::

    {"sections": {"Tcp": {"active connection openings": 61342, "segments retransmitted": 10141, ...},
                  "TcpExt": {"SYNs to LISTEN sockets dropped": 6233,
                             "times the listen queue of a socket overflowed": 6233,
                             "TCPTimeouts": 4994, ...},
                  "Icmp": {"ICMP messages received": 1,
                           "ICMP input histogram": {"destination unreachable": 1}, ...}, ...},
     "counters": {"Tcp.ActiveOpens": 61342, "TcpExt.ListenOverflows": 6233, ...},
     "warnings": [...]}

Each statistic is keyed by its text with the number taken out ("61342 active connection
openings" -> "active connection openings"; "Quick ack mode was activated 3 times" -> "Quick ack
mode was activated N times"; "TCPTimeouts: 4994" -> "TCPTimeouts"). Indented blocks under a line
ending in ':' (histograms) become nested objects. ``counters`` maps the statistics engineers look
for to their kernel (nstat) names, for comparisons that do not depend on net-tools' wording: older wordings (net-tools 2.0 on CentOS
7: "active connections openings", "segments send out", "segments retransmited", "bad segments
received.", "packets to unknown port received.") map to the same counters as net-tools' own
tables do. Lines pasted through grep without their section header (``netstat -s | grep -i
listen``) are placed in a section by their wording, with a warning; lines whose wording names no
section are ignored with a warning. A number of more than 40 digits is no kernel counter: that
line is ignored with a warning.
"""

from __future__ import annotations

from ._common import (
    JSON,
    MAX_DIGITS,
    ParseError,
    is_elision,
    show,
    split_lines,
    to_int,
)

KIND = "netstat-s"

#: counters count events since boot (packets, segments, connections, ...), as the kernel does
METRICS: dict[str, str] = {
    "counters.*": "count since boot",
    "sections.*.*": "count since boot",
}

# net-tools wording -> kernel counter name, for the statistics tuning work looks at
KERNEL_NAMES: dict[tuple[str, str], str] = {
    ("Tcp", "active connection openings"): "Tcp.ActiveOpens",
    ("Tcp", "passive connection openings"): "Tcp.PassiveOpens",
    ("Tcp", "failed connection attempts"): "Tcp.AttemptFails",
    ("Tcp", "connection resets received"): "Tcp.EstabResets",
    ("Tcp", "connections established"): "Tcp.CurrEstab",
    ("Tcp", "segments received"): "Tcp.InSegs",
    ("Tcp", "segments sent out"): "Tcp.OutSegs",
    ("Tcp", "segments retransmitted"): "Tcp.RetransSegs",
    ("Tcp", "bad segments received"): "Tcp.InErrs",
    ("Tcp", "resets sent"): "Tcp.OutRsts",
    (
        "TcpExt",
        "times the listen queue of a socket overflowed",
    ): "TcpExt.ListenOverflows",
    ("TcpExt", "SYNs to LISTEN sockets dropped"): "TcpExt.ListenDrops",
    ("TcpExt", "SYN cookies sent"): "TcpExt.SyncookiesSent",
    ("TcpExt", "SYN cookies received"): "TcpExt.SyncookiesRecv",
    ("TcpExt", "other TCP timeouts"): "TcpExt.TCPTimeouts",
    ("TcpExt", "TCP sockets finished time wait in fast timer"): "TcpExt.TW",
    ("TcpExt", "connections reset due to unexpected data"): "TcpExt.TCPAbortOnData",
    ("TcpExt", "connections reset due to early user close"): "TcpExt.TCPAbortOnClose",
    ("TcpExt", "connections aborted due to timeout"): "TcpExt.TCPAbortOnTimeout",
    ("Udp", "packets received"): "Udp.InDatagrams",
    ("Udp", "packets to unknown port received"): "Udp.NoPorts",
    ("Udp", "packet receive errors"): "Udp.InErrors",
    ("Udp", "packets sent"): "Udp.OutDatagrams",
    ("Udp", "receive buffer errors"): "Udp.RcvbufErrors",
    ("Udp", "send buffer errors"): "Udp.SndbufErrors",
    ("Ip", "total packets received"): "Ip.InReceives",
    ("Ip", "forwarded"): "Ip.ForwDatagrams",
    ("Ip", "incoming packets discarded"): "Ip.InDiscards",
    ("Ip", "incoming packets delivered"): "Ip.InDelivers",
    ("Ip", "requests sent out"): "Ip.OutRequests",
}


# net-tools before 2.10 (CentOS 7's 2.0) spelled these differently; its own tables map them to
# the same kernel counters
OLD_WORDINGS: dict[str, str] = {
    "active connections openings": "active connection openings",
    "segments send out": "segments sent out",
    "segments retransmited": "segments retransmitted",
    "bad segments received.": "bad segments received",
    "packets to unknown port received.": "packets to unknown port received",
    "input ICMP message failed.": "input ICMP message failed",
}

# wording -> section, for lines pasted through grep without their section header; wordings
# found in two sections ('packets received', 'resets sent' ...) are left out: they can't be placed
_SECTION_OF: dict[str, str] = {}
for (_section, _name) in KERNEL_NAMES:
    _SECTION_OF[_name] = "" if _name in _SECTION_OF else _section
for _old, _new in OLD_WORDINGS.items():
    if _new in _SECTION_OF:
        _SECTION_OF[_old] = _SECTION_OF[_new]
_SECTION_OF = {k: v for k, v in _SECTION_OF.items() if v}
_SECTION_OF.pop("packets received", None)
_SECTION_OF.pop("packets sent", None)


def _section_of(name: str) -> str | None:
    if name in _SECTION_OF:
        return _SECTION_OF[name]
    if name.startswith("TCP") and " " not in name:
        return "TcpExt"  # 'TCPTimeouts: 4994' and the other named TcpExt counters
    return None


def _kernel_name(section: str, name: str) -> str | None:
    return KERNEL_NAMES.get((section, OLD_WORDINGS.get(name, name)))


def _stat(text: str) -> tuple[str, int] | None:
    """('active connection openings', 61342) from one statistics line."""
    words = text.split()
    if not words:
        return None
    if words[0].endswith(":") and len(words) == 2 and to_int(words[1]) is not None:
        return words[0][:-1], to_int(words[1]) or 0
    if text.endswith(":") is False and ":" in text:
        name, _, value = text.rpartition(":")
        v = to_int(value.strip())
        if v is not None and name.strip():
            return name.strip(), v
    for i, w in enumerate(words):
        v = to_int(w)
        if v is not None:
            rest = (
                words[:i] + (["N"] if 0 < i < len(words) - 1 else []) + words[i + 1 :]
            )
            if i == len(words) - 1 and i > 0:
                rest = words[:i]
            return " ".join(rest), v
    return None


def parse(text: str) -> JSON:
    sections: dict[str, JSON] = {}
    counters: dict[str, int] = {}
    warnings: list[str] = []
    section: JSON | None = None
    section_name = ""
    group: JSON | None = None
    group_indent = 0
    first_other: tuple[int, str] | None = None
    inferred = False
    for n, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == 0 and stripped.endswith(":") and " " not in stripped:
            inferred = False
            section_name = stripped[:-1]
            section = sections.setdefault(section_name, {})
            group = None
            continue
        if section is None or (inferred and indent > 0):
            stat = _stat(stripped)
            guess = _section_of(stat[0]) if stat is not None else None
            if stat is None or guess is None:
                if first_other is None:
                    first_other = (n, line)
                if inferred:
                    warnings.append(
                        f"line {n}: no section header above it (a grep'd paste?) and its"
                        f" wording names none; ignored: {show(line)}"
                    )
                continue
            if not inferred:
                warnings.append(
                    "no section headers ('Tcp:', 'Udp:' ...): a paste through grep?"
                    " Each statistic was placed by its wording"
                )
            inferred = True
            sections.setdefault(guess, {})[stat[0]] = stat[1]
            kernel = _kernel_name(guess, stat[0])
            counters[kernel or f"{guess}.{stat[0]}"] = stat[1]
            continue
        if group is not None and indent <= group_indent:
            group = None
        if stripped.endswith(":") and to_int(stripped.split()[-1][:-1]) is None:
            group = section.setdefault(stripped[:-1], {})
            group_indent = indent
            continue
        stat = _stat(stripped)
        if stat is None:
            if any(w.isdigit() and len(w) > MAX_DIGITS for w in stripped.split()):
                warnings.append(
                    f"line {n}: a number of more than {MAX_DIGITS} digits is no kernel"
                    f" counter; ignored: {show(line)}"
                )
            elif is_elision(stripped):
                warnings.append(f"line {n}: lines left out here ('...')")
            else:
                warnings.append(
                    f"line {n}: not a netstat -s statistic, ignored: {show(line)}"
                )
            continue
        name, value = stat
        target = group if group is not None else section
        target[name] = value
        kernel = _kernel_name(section_name, name)
        if kernel is not None and group is None:
            counters[kernel] = value
        elif (
            group is None
            and section_name in ("TcpExt", "IpExt", "Tcp", "Udp", "Ip")
            and " " not in name
        ):
            counters[f"{section_name}.{name}"] = value
    if not sections:
        if first_other is None:
            raise ParseError("no netstat -s output: the input is empty", None)
        n, line = first_other
        raise ParseError(
            f"expected netstat -s sections ('Tcp:', 'Ip:' ...), got {show(line)}", n
        )
    return {"sections": sections, "counters": counters, "warnings": warnings}


def sniff(lines: list[str]) -> float:
    sections = stats = other = known = 0
    for line in lines[:60]:
        if not line.strip():
            continue
        if (
            line == line.lstrip()
            and line.strip().endswith(":")
            and " " not in line.strip()
        ):
            if line.strip()[:-1] in (
                "Ip",
                "Icmp",
                "IcmpMsg",
                "Tcp",
                "Udp",
                "UdpLite",
                "TcpExt",
                "IpExt",
                "MPTcpExt",
                "Ip6",
                "Icmp6",
                "Udp6",
            ):
                sections += 1
        elif line[:1] in " \t" and _stat(line.strip()) is not None:
            stats += 1  # net-tools indents by 4; some builds and pastes by 2
            if _section_of(_stat(line.strip())[0]) is not None:  # type: ignore[index]
                known += 1
        else:
            other += 1
    if sections >= 1 and stats >= 2 and other <= stats:
        return 0.8
    if sections == 0 and known >= 1 and other == 0 and known * 2 >= stats:
        return 0.6  # 'netstat -s | grep -i listen'
    return 0.0
