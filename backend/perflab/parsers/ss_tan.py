"""``ss -tan`` (``ss -tanp``): every TCP socket, summarised as counts per state.

Output schema: the same document as ``ss-ltn`` (one parser reads both tables)::

    {"states": {"ESTAB": 18, "TIME-WAIT": 3002, "LISTEN": 12}, "sockets": 3032,
     "listeners": [...], "peers": [{"peer": "10.0.0.2:80", "states": {"TIME-WAIT": 3000}}],
     "local_ports": 3002, "other_sockets": {"udp": 3}, "warnings": [...]}

Individual sockets are not listed (tens of thousands during a load test): ``peers`` keeps the 20
remote endpoints with the most sockets, ``local_ports`` the number of distinct local ports in use by
non-listening sockets (against ``net.ipv4.ip_local_port_range`` this is ephemeral port pressure).
``ss -tupna`` and ``ss -a`` are read too: their non-TCP rows go to ``other_sockets`` only.
"""

from __future__ import annotations

from . import ss_ltn
from ._common import JSON

KIND = "ss-tan"

METRICS: dict[str, str] = dict(ss_ltn.METRICS)


def parse(text: str) -> JSON:
    return ss_ltn.parse(text)


def sniff(lines: list[str]) -> float:
    header, _listen, other = ss_ltn.rows(lines)
    if not header or other == 0:
        return 0.0
    return 0.9
