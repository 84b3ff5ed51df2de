"""``sysctl -a`` output (Linux ``name = value``, BSD and macOS ``name: value``) and sysctl.conf lines.

Output schema::

    {"values": {"net.ipv4.tcp_tw_reuse": "2", "net.ipv4.ip_local_port_range": "32768 60999", ...},
     "numbers": {"net.ipv4.tcp_tw_reuse": 2, "net.ipv4.ip_local_port_range": [32768, 60999], ...},
     "warnings": [...]}

Values are kept as text with runs of whitespace (sysctl prints tabs) folded to one space, so two
runs diff cleanly; ``numbers`` holds the integer (or list of integers) for values that are numeric.
Names in ``/`` form (``net/ipv4/tcp_tw_reuse``) are written with dots. Comments (``#``, ``;``), a
leading ``-`` (ignore-errors in sysctl.conf) and sysctl's "permission denied" messages are skipped,
the latter with a warning. A name given twice keeps the last value (as sysctl applies them),
except on consecutive lines: that is how Linux prints a value of several lines (``dev.cdrom.info
= CD-ROM information, ...`` then ``dev.cdrom.info = drive name: sr0`` ...), joined with newlines
into one value. In ``name: value`` output, bare lines after a setting are further lines of its
value (BSD's ``kern.geom.conftxt``). A value of several lines has no ``numbers`` entry; its
blank last lines are dropped. A text with more other lines than settings is refused.
"""

from __future__ import annotations

from ._common import JSON, ParseError, is_elision, show, split_lines, to_int

KIND = "sysctl"

_NAME_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/:@*%"
)


def _split(line: str) -> tuple[str, str] | None:
    """(name, value) of 'name = value' (Linux) or 'name: value' (BSD, macOS)."""
    found = _split_at(line, "=")
    if found is None and ":" in line:
        raw = line.partition(":")[0]
        if "/" in raw or "." not in raw:
            return None  # 'Requests/sec: 858.98', 'strace: ...' are no BSD settings
        found = _split_at(line, ":")
    return found


def _split_at(line: str, sep: str) -> tuple[str, str] | None:
    name, eq, value = line.partition(sep)
    name = name.strip()
    if not eq or not name or not name.isascii() or not set(name) <= _NAME_CHARS:
        return None
    name = name.removeprefix("-")
    if "/" in name and "." not in name:
        name = name.strip("/").replace("/", ".")
    name = name.removeprefix("proc.sys.")
    if "." not in name or name.startswith("."):  # BSD names may end in "." (security.jail.param.host.)
        return None
    return name, " ".join(value.split())


def _number(value: str) -> int | list[int] | None:
    if "\n" in value:
        return None  # a text of several lines (dev.cdrom.info), not a vector of numbers
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
    last: str | None = None
    more: dict[str, list[str]] = {}
    bsd = False
    others = 0
    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped and bsd and last is not None:
            more[last].append("")  # a blank line inside a BSD value of several lines
            continue
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
        if split is not None and split[0] == last and last in values:
            # Linux sysctl -a prints a value of several lines as several lines of the same
            # name (dev.cdrom.info): one value, its lines joined
            more[last].append(split[1])
            numbers.pop(last, None)
            continue
        if split is None and last is not None and bsd:
            # BSD and macOS print the further lines of a value bare (kern.geom.conftxt)
            more[last].append(" ".join(stripped.split()))
            numbers.pop(last, None)
            continue
        if split is None:
            last = None
            others += 1
            if first_other is None:
                first_other = (n, line)
            warnings.append(
                f"line {n}: not a 'name = value' line, ignored: {show(line)}"
            )
            continue
        name, value = split
        last = name
        if _split_at(stripped, "=") is None:
            bsd = True  # 'name: value'
        if name in values and values[name] != value:
            warnings.append(
                f"line {n}: {name} set again ({values[name]!r} -> {value!r}); the last one wins"
            )
        values[name] = value
        more[name] = []  # lines are collected, joined once at the end: += would be quadratic
        number = _number(value)
        if number is not None:
            numbers[name] = number
        else:
            numbers.pop(name, None)
    for name, lines in more.items():
        if lines:
            # the blank last lines of a multi-line value are dropped
            values[name] = "\n".join([values[name], *lines]).rstrip("\n")
    if not values or (first_other is not None and others > len(values)):
        # a few 'a.b: c' lines in another tool's output are not a sysctl listing
        if first_other is None:
            raise ParseError("no sysctl settings: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected 'name = value' sysctl lines, got {show(line)}", n)
    return {"values": values, "numbers": numbers, "warnings": warnings[:200]}


# top-level names of BSD and macOS sysctl trees ('kern.maxfiles: 64303')
_BSD_ROOTS = frozenset(
    {"kern", "vm", "vfs", "net", "debug", "hw", "machdep", "user", "p1003_1b", "security",
     "dev", "compat", "sysctl", "kstat"}
)


def sniff(lines: list[str]) -> float:
    good = bad = 0
    for line in lines[:100]:
        s = line.strip()
        if not s or s[0] in "#;" or s.startswith("sysctl:"):
            continue
        split = _split(s)
        if split is not None and (
            " = " in s
            or s.count(".") >= 2
            or (": " in s and split[0].partition(".")[0] in _BSD_ROOTS)
        ):
            good += 1
        else:
            bad += 1
    if good >= 1 and good >= 4 * bad:
        return 0.7
    return 0.0
