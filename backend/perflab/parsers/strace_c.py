"""``strace -c`` summary tables (strace <= 5.5, current, ``-w``, ``-S``, ``-U`` column choices).

Output schema::

    {"syscalls": [{"syscall": "writev", "calls": 49123, "errors": 0, "seconds": 0.848793,
                   "usecs_per_call": 17 | null, "pct_time": 70.35 | null,
                   "min_seconds": ... , "max_seconds": ...}],   # the last two with -U only
     "total": {"calls": 92627, "errors": 0, "seconds": 1.206519,
               "usecs_per_call": 13 | null, "pct_time": 100.0 | null} | null,
     "columns": ["pct_time", "seconds", "usecs_per_call", "calls", "errors", "syscall"],
     "warnings": [...]}

Numbers may carry the locale's decimal comma (``31,66  0,000670`` under de_DE: strace never
groups thousands, so a comma in a time column is a decimal comma). A table none of whose rows can
be read is an error naming the first one, never an empty result. Blank error cells are 0 (strace
leaves them blank). A blank usecs/call (old strace's total row) and
columns that ``-U`` left out are null, never computed. Cells are cut by the dashed rule under the
header, so blank cells stay in their column; a paste whose spacing was mangled falls back to
whitespace splitting. strace's own messages ("strace: Process 8334 attached") and anything the
traced program printed around the table are ignored. An empty window (strace printed no table) gives
``"syscalls": [], "total": null`` and a warning; "strace: attach: ... Operation not permitted" is an
error.
"""

from __future__ import annotations

from typing import Any

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float, to_int

KIND = "strace-c"

#: per-syscall metric -> unit
METRICS: dict[str, str] = {
    "calls": "calls",
    "errors": "calls",
    "seconds": "s",
    "usecs_per_call": "us",
    "pct_time": "%",
    "min_seconds": "s",
    "max_seconds": "s",
}

# header label -> (key, type)
COLUMNS: dict[str, tuple[str, str]] = {
    "%time": ("pct_time", "f"),
    "seconds": ("seconds", "f"),
    "usecs/call": ("usecs_per_call", "i"),
    "calls": ("calls", "i"),
    "errors": ("errors", "i"),
    "syscall": ("syscall", "s"),
    "shortest": ("min_seconds", "f"),
    "longest": ("max_seconds", "f"),
}


def _header(line: str) -> list[str] | None:
    tokens = line.replace("% time", "%time").split()
    if "syscall" not in tokens or "calls" not in tokens:
        return None
    if not all(t in COLUMNS for t in tokens):
        return None
    return tokens


def _spans(rule: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = None
    for i, c in enumerate(rule):
        if c == "-" and start is None:
            start = i
        elif c != "-" and start is not None:
            spans.append((start, i))
            start = None
    if start is not None:
        spans.append((start, len(rule)))
    return spans


def _cells_by_spans(line: str, spans: list[tuple[int, int]]) -> list[str]:
    # Cells are cut at the start of the next column, so a value that overflows its dashes
    # to the left (wider numbers) or to the right (long syscall names) still lands whole.
    cells = []
    for i, (start, _end) in enumerate(spans):
        nxt = spans[i + 1][0] if i + 1 < len(spans) else len(line)
        begin = 0 if i == 0 else start
        cells.append(
            line[begin:nxt].strip() if i + 1 < len(spans) else line[begin:].strip()
        )
    return cells


def _convert(cols: list[str], cells: list[str]) -> JSON | None:
    row: JSON = {}
    for label, cell in zip(cols, cells):
        key, typ = COLUMNS[label]
        if typ == "s":
            if not cell or " " in cell:
                return None
            row[key] = cell
        elif cell == "":
            row[key] = 0 if key == "errors" else None
        else:
            value: int | float | None
            if typ == "i":
                value = to_int(cell)
            else:
                # strace prints its floats with the locale's decimal mark ('31,66  0,000670'
                # in de_DE) and never groups thousands, so a comma here is a decimal comma.
                value = to_float(cell, decimal_comma="," in cell and "." not in cell)
            if value is None:
                return None
            row[key] = value
    return row


def _row(
    line: str, cols: list[str], spans: list[tuple[int, int]] | None
) -> JSON | None:
    if spans is not None and len(spans) == len(cols):
        row = _convert(cols, _cells_by_spans(line, spans))
        if row is not None:
            return row
    tokens = line.split()
    if len(tokens) == len(cols):
        return _convert(cols, tokens)
    if len(tokens) == len(cols) - 1 and "errors" in cols:
        # whitespace-mangled paste: the blank cell is the errors one, strace's only blank cell
        i = cols.index("errors")
        return _convert(cols, tokens[:i] + [""] + tokens[i:])
    return None


def parse(text: str) -> JSON:
    cols: list[str] | None = None
    spans: list[tuple[int, int]] | None = None
    syscalls: list[JSON] = []
    total: JSON | None = None
    warnings: list[str] = []
    first_other: tuple[int, str] | None = None
    first_bad: tuple[int, str] | None = None
    rules = 0
    tables = 0
    in_table = False
    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if is_elision(stripped):
            warnings.append(f"line {n}: lines left out here ('...'); rows are missing")
            continue
        if stripped.startswith("strace: "):
            msg = stripped[len("strace: ") :]
            if (
                msg.startswith(("attach:", "Can't stat"))
                or "Operation not permitted" in msg
            ):
                if cols is None:
                    raise ParseError(f"strace failed: {msg}", n)
                warnings.append(f"line {n}: strace said: {msg}")
            continue
        header = _header(line)
        if header is not None:
            if tables:
                warnings.append(
                    f"line {n}: another summary table (another personality?); rows merged"
                )
            cols, spans, rules, tables = header, None, 0, tables + 1
            in_table = True
            continue
        if cols is None or not in_table:
            if first_other is None:
                first_other = (n, line)
            continue
        if set(stripped) <= {"-", " "}:
            rules += 1
            if spans is None:
                spans = _spans(line.rstrip())
            continue
        if rules == 0:
            warnings.append(
                f"line {n}: expected the dashed rule under the header; got {show(line)}"
            )
        row = _row(line.rstrip(), cols, spans)
        if row is None:
            if stripped.startswith("System call usage summary"):
                continue
            if first_bad is None:
                first_bad = (n, line)
            warnings.append(
                f"line {n}: not a row of the strace -c table, ignored: {show(line)}"
            )
            continue
        name = row.get("syscall")
        if name == "total":
            row.pop("syscall")
            if total is not None:
                total = {k: _add(total.get(k), v) for k, v in row.items()}
            else:
                total = row
            in_table = False
            continue
        syscalls.append(_full(row))

    if cols is None and tables == 0:
        if first_other is not None and not _only_noise(text):
            n, line = first_other
            raise ParseError(
                f"expected a strace -c table ('% time  seconds  usecs/call  calls ...'), got {show(line)}",
                n,
            )
        if first_other is None and not text.strip():
            raise ParseError("no strace -c output: the input is empty", None)
        warnings.append(
            "no summary table: strace printed none (the traced process made no system calls?)"
        )
    elif not syscalls and total is None and first_bad is not None:
        # a table whose every row is unreadable must not come out as "no system calls"
        n, line = first_bad
        raise ParseError(f"unreadable row of the strace -c table: {show(line)}", n)
    elif total is None:
        warnings.append("no 'total' row: the table is cut off; the totals are null")
    out_total = None
    if total is not None:
        out_total = {
            "calls": total.get("calls"),
            "errors": total.get("errors", 0),
            "seconds": total.get("seconds"),
            "usecs_per_call": total.get("usecs_per_call"),
            "pct_time": total.get("pct_time"),
        }
    return {
        "syscalls": syscalls,
        "total": out_total,
        "columns": [COLUMNS[c][0] for c in cols] if cols else [],
        "warnings": warnings,
    }


def _add(a: Any, b: Any) -> Any:
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
    ):
        return a + b
    return a if b is None else b


def _full(row: JSON) -> JSON:
    out: JSON = {
        "syscall": row.get("syscall"),
        "calls": row.get("calls"),
        "errors": row.get("errors", 0),
        "seconds": row.get("seconds"),
        "usecs_per_call": row.get("usecs_per_call"),
        "pct_time": row.get("pct_time"),
    }
    for extra in ("min_seconds", "max_seconds"):
        if extra in row:
            out[extra] = row[extra]
    return out


def _only_noise(text: str) -> bool:
    """True when every line is strace's own chatter (attach/detach), i.e. an empty window."""
    lines = [ln.strip() for ln in split_lines(text) if ln.strip()]
    return bool(lines) and all(ln.startswith("strace: ") for ln in lines)


def sniff(lines: list[str]) -> float:
    for line in lines[:200]:
        if _header(line) is not None:
            return 1.0
    stripped = [ln.strip() for ln in lines if ln.strip()]
    if stripped and all(ln.startswith("strace: ") for ln in stripped[:20]):
        return 0.5
    return 0.0
