"""``tsar`` (Alibaba's system activity reporter): live (``tsar -l -i 1``) or history (``tsar``,
``tsar --cpu -i 1``) tables, with their MAX/MEAN/MIN rows.

Output schema::

    {"columns": ["cpu.util", "mem.util", "tcp.retran", "traffic.bytin", "traffic.bytout", "sda.util",
                 "load.load1"],                                   # module.column, in print order
     "samples": [{"time": "04/06/18-21:09:22", "cpu.util": 0.0, ..., "traffic.bytin": 60.0}],
     "summary": {"MAX": {"cpu.util": 0.16, ...}, "MEAN": {...}, "MIN": {...}},
     "warnings": [...]}

Each column is placed under the module header (``---cpu--``, ``-----traffic----``) printed above it,
by character position. Values keep tsar's units (percent for util, per second for rates); a ``K``,
``M``, ``G`` or ``T`` suffix (memory) is multiplied out in powers of 1024; ``-`` is null. ``time`` is as
printed (``DD/MM/YY-HH:MM[:SS]``).

Per-item modules print one header per item, named after the item: ``tsar --nginx_domain`` gives
``----127.0.0.1:18555----  ---www.example.com:80---`` over ``cps qps 2XX ... rt uprt upret`` for each;
their columns are ``127.0.0.1:18555.qps``, ``www.example.com:80.rt`` (the item, a dot, the column).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float

KIND = "tsar"

METRICS: dict[str, str] = {"samples.*.*": "as printed by tsar (util in %)"}

# A module header: a name between dashes. One dash each side is enough to find it, and it keeps the
# search linear: "-+name-+" backtracked over every dash of a long run of them (a 16 KB line of
# dashes froze the server for 7 s through auto-detection).
_GROUP = re.compile(r"-[A-Za-z0-9_]+-")
_TIME = re.compile(r"^\d\d/\d\d/\d\d-\d\d:\d\d(?::\d\d)?$")
_SUFFIX = {"K": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4}
SUMMARY_ROWS = ("MAX", "MEAN", "MIN")


def _value(tok: str) -> float | None:
    if tok and tok[-1] in _SUFFIX:
        base = to_float(tok[:-1])
        return None if base is None else round(base * _SUFFIX[tok[-1]], 3)
    return to_float(tok)


def _item_headers(tokens: list[str]) -> bool:
    """Whether every header after "Time" is an item name between dashes: per-item modules
    (``--nginx_domain``, ``--nginx_multiport``) name their headers after ``host:port`` or a domain,
    whose dots and colons a module name never has."""
    return len(tokens) > 1 and all(len(t) > 2 and t[0] == "-" and t[-1] == "-" for t in tokens[1:])


def _columns(groups_line: str, names_line: str) -> list[str]:
    # Module headers are dashes around a name, cut to the column width (`mmcblk0-`, `mmcblk0p`).
    spans = [(m.start(), m.end(), m.group(0).strip("-") or "?") for m in re.finditer(r"\S+", groups_line)
             if m.start() > 0]
    starts = [s for s, _, _ in spans]  # sorted and disjoint: a bisection finds a column's header
    out: list[str] = []
    taken: set[str] = set()
    for m in re.finditer(r"\S+", names_line):
        if m.start() == 0:
            continue  # "Time"
        center = (m.start() + m.end()) / 2
        at = bisect_right(starts, center) - 1  # the last header starting at or before the center
        # Under that header, or after it (tsar prints a header over its first columns only).
        group = spans[at][2] if at >= 0 else "?"
        name = f"{group}.{m.group(0)}"
        k = 2
        while name in taken:  # two devices whose names tsar cut to the same 8 characters
            name = f"{group}#{k}.{m.group(0)}"
            k += 1
        out.append(name)
        taken.add(name)
    return out


def parse(text: str) -> JSON:
    lines = split_lines(text)
    columns: list[str] | None = None
    samples: list[JSON] = []
    summary: dict[str, JSON] = {}
    warnings: list[str] = []
    first_other: tuple[int, str] | None = None
    pending_groups: str | None = None
    for n, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        if is_elision(s):
            warnings.append(f"line {n}: lines left out here ('...'); samples are missing")
            continue
        tokens = s.split()
        if tokens[0] == "Time" and (_GROUP.search(line) or _item_headers(tokens)):
            pending_groups = line
            continue
        if tokens[0] == "Time" and pending_groups is not None:
            columns = _columns(pending_groups, line)
            pending_groups = None
            continue
        if columns is None:
            if first_other is None:
                first_other = (n, line)
            continue
        if _TIME.match(tokens[0]) or tokens[0] in SUMMARY_ROWS:
            values = tokens[1:]
            if len(values) != len(columns):
                warnings.append(f"line {n}: {len(values)} values for {len(columns)} columns, ignored: {show(line)}")
                continue
            row = {c: _value(v) for c, v in zip(columns, values, strict=True)}
            if tokens[0] in SUMMARY_ROWS:
                summary[tokens[0]] = row
            else:
                samples.append({"time": tokens[0], **row})
            continue
        warnings.append(f"line {n}: not a tsar row, ignored: {show(line)}")
    if columns is None:
        if first_other is None:
            raise ParseError("no tsar output: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected tsar's two header lines ('Time  ---cpu-- ...', 'Time  util ...'), got {show(line)}", n)
    return {"columns": columns, "samples": samples, "summary": summary, "warnings": warnings[:200]}


def sniff(lines: list[str]) -> float:
    head = [ln for ln in lines[:10] if ln.strip()]
    if (len(head) >= 2 and head[0].split()[:1] == ["Time"] and head[1].split()[:1] == ["Time"]
            and (_GROUP.search(head[0]) or _item_headers(head[0].split()))):
        return 0.9
    return 0.0
