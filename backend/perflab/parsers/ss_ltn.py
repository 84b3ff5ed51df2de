"""``ss -ltn`` / ``ss -ltnp`` listening sockets (and the socket table of ``ss -tan``, see ``ss-tan``).

Output schema::

    {"listeners": [{"local": "127.0.0.1:18777", "address": "127.0.0.1", "port": 18777,
                    "recv_q": 9,            # connections waiting in the accept queue
                    "send_q": 8,            # the accept queue's size: min(listen() backlog, somaxconn)
                    "full": true,           # recv_q >= send_q: the queue overflowed (SYNs dropped)
                    "process": "python3" | null, "pid": 11578 | null}],    # from -p's users:(...)
     "states": {"LISTEN": 12, "ESTAB": 18, "TIME-WAIT": 3002},           # sockets per state
     "sockets": 3032,
     "peers": [{"peer": "127.0.0.1:18778", "states": {"TIME-WAIT": 3000}}],   # top 20 remote endpoints
     "local_ports": 3002,          # distinct local ports of non-listening sockets (ephemeral use)
     "other_sockets": {"udp": 3, "u_str": 9, "nl": 11},   # rows of other Netids (ss -tupna, ss -a)
     "warnings": [...]}

For a listening socket ``Recv-Q`` is the accept queue's current length and ``Send-Q`` its limit
(the backlog nginx's ``listen ... backlog=N`` asked for, capped by ``net.core.somaxconn``); the kernel
drops SYNs once Recv-Q exceeds it, so ``Recv-Q = Send-Q + 1`` is a full queue. Columns are found by
header name (``Netid`` and ``Process`` are optional; old iproute2 omits ``State`` when only listeners
are shown). Counts are sockets; queues are connections. With a ``Netid`` column (``ss -tupna``, ``ss -a``)
only ``tcp`` rows are TCP sockets: UDP, unix (``u_str``, ``u_dgr``), netlink (``nl``) and other families
are counted per Netid in ``other_sockets`` and never enter ``states`` or ``sockets``.
"""

from __future__ import annotations

import re

from ._common import JSON, ParseError, is_elision, show, split_lines, to_int

KIND = "ss-ltn"

#: listener queues are connections; state counts are sockets
METRICS: dict[str, str] = {
    "listeners.*.recv_q": "connections",
    "listeners.*.send_q": "connections",
    "states.*": "sockets",
    "sockets": "sockets",
}

STATES = frozenset(
    {
        "LISTEN", "ESTAB", "TIME-WAIT", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2",
        "CLOSE-WAIT", "LAST-ACK", "CLOSING", "CLOSED", "UNCONN", "UNKNOWN",
    }
)
#: ss's Netid column (-a lists every family); only tcp rows are TCP sockets
NETIDS = frozenset(
    {"tcp", "udp", "raw", "mptcp", "sctp", "dccp", "u_str", "u_dgr", "u_seq", "nl", "p_raw", "p_dgr",
     "v_str", "v_dgr", "xdp", "tipc", "unknown"}
)
_USERS = re.compile(r'users:\(\("((?:[^"\\]|\\.)*)",pid=(\d+)')
MAX_PEERS = 20


def _split_endpoint(ep: str) -> tuple[str, int | None]:
    addr, _, port = ep.rpartition(":")
    return addr, to_int(port)


def parse(text: str) -> JSON:
    listeners: list[JSON] = []
    states: dict[str, int] = {}
    peers: dict[str, dict[str, int]] = {}
    local_ports: set[int] = set()
    warnings: list[str] = []
    header: list[str] | None = None
    first_other: tuple[int, str] | None = None
    sockets = 0
    other: dict[str, int] = {}
    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if is_elision(stripped):
            warnings.append(f"line {n}: lines left out here ('...'); sockets are missing")
            continue
        tokens = stripped.split()
        if "Recv-Q" in tokens and "Send-Q" in tokens:
            header = tokens
            continue
        if header is None:
            if first_other is None:
                first_other = (n, line)
            continue
        has_netid = header[0] == "Netid"
        if has_netid and tokens[0] != "tcp":
            # ss -tupna's UDP rows, ss -a's unix and netlink sockets: counted apart, never as TCP states
            other[tokens[0]] = other.get(tokens[0], 0) + 1
            continue
        has_state = "State" in header
        i = 1 if has_netid else 0
        state = tokens[i] if has_state else "LISTEN"
        if has_state:
            i += 1
        if len(tokens) < i + 4 or state not in STATES:
            warnings.append(f"line {n}: not a socket row, ignored: {show(line)}")
            continue
        recv_q, send_q = to_int(tokens[i]), to_int(tokens[i + 1])
        local, peer = tokens[i + 2], tokens[i + 3]
        if recv_q is None or send_q is None:
            warnings.append(f"line {n}: Recv-Q/Send-Q are not numbers, ignored: {show(line)}")
            continue
        sockets += 1
        states[state] = states.get(state, 0) + 1
        if state == "LISTEN":
            address, port = _split_endpoint(local)
            m = _USERS.search(stripped)
            listeners.append(
                {
                    "local": local, "address": address, "port": port, "recv_q": recv_q,
                    "send_q": send_q, "full": send_q > 0 and recv_q >= send_q,
                    "process": m.group(1) if m else None, "pid": int(m.group(2)) if m else None,
                }
            )
        else:
            per = peers.setdefault(peer, {})
            per[state] = per.get(state, 0) + 1
            port = _split_endpoint(local)[1]
            if port is not None:
                local_ports.add(port)
    if header is None:
        if first_other is None:
            raise ParseError("no ss output: the input is empty", None)
        n, line = first_other
        raise ParseError(
            f"expected ss -ltn/-tan output (a 'State Recv-Q Send-Q Local Address:Port ...' header), got {show(line)}",
            n,
        )
    top = sorted(peers.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:MAX_PEERS]
    return {
        "listeners": listeners,
        "states": states,
        "sockets": sockets,
        "peers": [{"peer": p, "states": s} for p, s in top],
        "local_ports": len(local_ports),
        "other_sockets": dict(sorted(other.items())),
        "warnings": warnings[:200],
    }


def rows(lines: list[str]) -> tuple[bool, int, int]:
    """(header seen, listening rows, other rows) in the first lines: what tells -ltn from -tan."""
    header = False
    listen = other = 0
    for line in lines[:200]:
        tokens = line.split()
        if not tokens:
            continue
        if "Recv-Q" in tokens and "Send-Q" in tokens:
            header = True
            continue
        if tokens[0] in NETIDS:
            if tokens[0] != "tcp":
                continue
            state = tokens[1] if len(tokens) > 1 else ""
        else:
            state = tokens[0]
        if state == "LISTEN":
            listen += 1
        elif state in STATES:
            other += 1
    return header, listen, other


def sniff(lines: list[str]) -> float:
    header, listen, other = rows(lines)
    if not header or listen + other == 0:
        return 0.0
    return 0.9 if other == 0 else 0.6
