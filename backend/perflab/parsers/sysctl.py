"""``sysctl -a`` output and ``name = value`` lines (sysctl.conf style).

Output schema::

    {"values": {"net.ipv4.tcp_tw_reuse": "2", "net.ipv4.ip_local_port_range": "32768 60999", ...},
     "numbers": {"net.ipv4.tcp_tw_reuse": 2, "net.ipv4.ip_local_port_range": [32768, 60999], ...},
     "warnings": [...]}

Values are kept as text with runs of whitespace (sysctl prints tabs) folded to one space, so two
runs diff cleanly; ``numbers`` holds the integer (or list of integers) for values that are numeric.
Names in ``/`` form (``net/ipv4/tcp_tw_reuse``) are written with dots. Comments (``#``, ``;``), a
leading ``-`` (ignore-errors in sysctl.conf) and sysctl's "permission denied" messages are skipped,
the latter with a warning. A name given twice keeps the last value (as sysctl applies them).
"""

from __future__ import annotations

from ._common import JSON, ParseError, is_elision, show, split_lines, to_int

KIND = "sysctl"

_NAME_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/:@*"
)


def _split(line: str) -> tuple[str, str] | None:
    name, eq, value = line.partition("=")
    name = name.strip()
    if not eq or not name or not name.isascii() or not set(name) <= _NAME_CHARS:
        return None
    name = name.removeprefix("-")
    if "/" in name and "." not in name:
        name = name.strip("/").replace("/", ".")
    name = name.removeprefix("proc.sys.")
    if "." not in name or name.startswith(".") or name.endswith("."):
        return None
    return name, " ".join(value.split())


def _number(value: str) -> int | list[int] | None:
    parts = value.split()
    nums = [to_int(p) for p in parts]
    if not parts or any(n is None for n in nums):
        return None
    ints = [n for n in nums if n is not None]
    return ints[0] if len(ints) == 1 else ints


def parse(text: str) -> JSON:
    values: dict[str, str] = {}
    numbers: dict[str, int | list[int]] = {}
    warnings: list[str] = []
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if is_elision(stripped):
            warnings.append(
                f"line {n}: lines left out here ('...'); settings are missing"
            )
            continue
        if stripped.startswith("sysctl:"):
            warnings.append(f"line {n}: sysctl said: {stripped[7:].strip()}")
            continue
        split = _split(stripped)
        if split is None:
            if first_other is None:
                first_other = (n, line)
            warnings.append(
                f"line {n}: not a 'name = value' line, ignored: {show(line)}"
            )
            continue
        name, value = split
        if name in values and values[name] != value:
            warnings.append(
                f"line {n}: {name} set again ({values[name]!r} -> {value!r}); the last one wins"
            )
        values[name] = value
        number = _number(value)
        if number is not None:
            numbers[name] = number
        else:
            numbers.pop(name, None)
    if not values:
        if first_other is None:
            raise ParseError("no sysctl settings: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected 'name = value' sysctl lines, got {show(line)}", n)
    return {"values": values, "numbers": numbers, "warnings": warnings[:200]}


def sniff(lines: list[str]) -> float:
    good = bad = 0
    for line in lines[:100]:
        s = line.strip()
        if not s or s[0] in "#;" or s.startswith("sysctl:"):
            continue
        if (
            _split(s) is not None
            and " = " in s
            or (_split(s) is not None and s.count(".") >= 2)
        ):
            good += 1
        else:
            bad += 1
    if good >= 1 and good >= 4 * bad:
        return 0.7
    return 0.0
