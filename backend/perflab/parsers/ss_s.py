"""``ss -s`` socket summaries (iproute2 6.x and the pre-4.17 layout).

Output schema::

    {"total": 421, "kernel": 16739 | null,            # 'Total: N (kernel M)' on old iproute2
     "tcp": {"total": 14965, "estab": 3, "closed": 14562, "orphaned": 396, "synrecv": 0 | null,
             "timewait": 14562, "timewait2": 0 | null, "ports": 0 | null},
     "transports": {"RAW": {"total": 0, "ip": 0, "ipv6": 0}, "UDP": {...}, "TCP": {...},
                    "INET": {...}, "FRAG": {...}, "*": {"total": 16739, "ip": null, "ipv6": null}},
     "warnings": [...]}

Counts are sockets. Old iproute2 prints ``timewait A/B`` (``timewait2`` is B) and ``ports N``;
``-`` cells are null. Fields the input does not show are null.
"""

from __future__ import annotations

from ._common import JSON, ParseError, is_elision, show, split_lines, to_int

KIND = "ss-s"

#: every count is a number of sockets
METRICS: dict[str, str] = {
    "total": "sockets",
    "kernel": "sockets",
    "tcp.*": "sockets",
    "transports.*.*": "sockets",
}


def parse(text: str) -> JSON:
    out: JSON = {
        "total": None,
        "kernel": None,
        "tcp": None,
        "transports": {},
        "warnings": [],
    }
    warnings: list[str] = out["warnings"]
    seen = False
    in_table = False
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if is_elision(stripped):
            warnings.append(f"line {n}: lines left out here ('...'); rows are missing")
            continue
        tokens = stripped.replace(",", " ").replace("(", " ").replace(")", " ").split()
        if not tokens:
            continue
        if tokens[0] == "Total:" and len(tokens) >= 2:
            out["total"] = to_int(tokens[1])
            if "kernel" in tokens:
                i = tokens.index("kernel")
                out["kernel"] = to_int(tokens[i + 1]) if i + 1 < len(tokens) else None
            seen = True
            continue
        if tokens[0] == "TCP:" and len(tokens) >= 2:
            tcp: JSON = {
                "total": to_int(tokens[1]),
                "estab": None,
                "closed": None,
                "orphaned": None,
                "synrecv": None,
                "timewait": None,
                "timewait2": None,
                "ports": None,
            }
            for i in range(2, len(tokens) - 1):
                name, value = tokens[i], tokens[i + 1]
                if name in tcp and name != "total":
                    if name == "timewait" and "/" in value:
                        a, _, b = value.partition("/")
                        tcp["timewait"], tcp["timewait2"] = to_int(a), to_int(b)
                    else:
                        tcp[name] = to_int(value)
            out["tcp"] = tcp
            seen = True
            continue
        if tokens[:2] == ["Transport", "Total"]:
            in_table = True
            seen = True
            continue
        if in_table and len(tokens) == 4:
            cells = [None if t == "-" else to_int(t) for t in tokens[1:]]
            if all(c is not None or t == "-" for c, t in zip(cells, tokens[1:])):
                out["transports"][tokens[0]] = {
                    "total": cells[0],
                    "ip": cells[1],
                    "ipv6": cells[2],
                }
                continue
        if first_other is None:
            first_other = (n, line)
        if seen:
            warnings.append(f"line {n}: not an ss -s line, ignored: {show(line)}")
    if not seen:
        if first_other is None:
            raise ParseError("no ss -s output: the input is empty", None)
        n, line = first_other
        raise ParseError(
            f"expected ss -s output ('Total: N', 'TCP: N (estab ...)'), got {show(line)}",
            n,
        )
    if out["tcp"] is None:
        warnings.append("no 'TCP:' line (truncated paste?): tcp is null")
    if not out["transports"]:
        warnings.append("no 'Transport Total IP IPv6' table (truncated paste?)")
    return out


def sniff(lines: list[str]) -> float:
    head = [ln.strip() for ln in lines[:20] if ln.strip()]
    score = 0.0
    for ln in head:
        if ln.startswith("Total:") and len(ln.split()) <= 4:
            score += 0.4
        elif (
            ln.startswith("TCP:")
            and "estab" in ln
            or ln.split()[:2] == ["Transport", "Total"]
        ):
            score += 0.5
    return min(score, 1.0)
