"""netqtop (bcc) per-queue packet size tables: a streaming line parser and ``parse()``.

Output schema::

    {"interface": "lo" | null, "interval_s": 1.0 | null,     # from a pasted '# ./netqtop.py -n lo -i 1'
     "intervals": [{"time": "2020-09-10T11:28:39",           # local time, as netqtop printed it
                    "tx": {"queues": [{"queue": 0, "avg_size_bytes": 88,
                                       "buckets": {"0-64": 0, "64-512": 9, "512-2K": 0,
                                                   "2K-16K": 0, "16K-64K": 0},
                                       "bps": 1136.64 | null, "pps": 10.0 | null}],   # -t only
                           "total": {same keys but "queue"} | null},
                    "rx": {...}}],
     "warnings": [...]}

Buckets count packets in the interval; ``avg_size_bytes`` is bytes per packet; ``bps``/``pps`` are
bytes and packets per second (``-t``). netqtop shortens numbers above 1000 to ``1.17K`` and above
1,000,000 to ``1.45M``, dividing by 1024 and 1024*1024 (its ``to_str``); they are expanded the
same way (1.17K -> 1198.08), so they carry netqtop's rounding (two decimals of the scaled value).
Units are netqtop's meaning: its "350.16M" BPS is 350.16 MiB/s = 367,166,259 bytes/s here, and
the run charts show byte rates with binary prefixes (350.2 MiB/s), as netqtop does, not SI ones
(367M). Each packet-size bucket becomes its own series (``tx.packets_0-64`` ...), per queue.
Columns are found by header names. An interval is complete at its dashed rule (or at the next
timestamp); ``finish()`` flushes a last one with a warning if it was cut off.
"""

from __future__ import annotations

import copy
import datetime as _dt
from decimal import Decimal

from ._common import (
    JSON,
    LineParser,
    ParseError,
    dec_to_float,
    is_elision,
    parse_lines,
    show,
    to_decimal,
)

KIND = "netqtop"

_HEADERS = {
    "QueueID": "queue",
    "avg_size": "avg_size_bytes",
    "[0, 64)": "0-64",
    "[64, 512)": "64-512",
    "[512, 2K)": "512-2K",
    "[2K, 16K)": "2K-16K",
    "[16K, 64K)": "16K-64K",
    "BPS": "bps",
    "PPS": "pps",
}
BUCKETS = ("0-64", "64-512", "512-2K", "2K-16K", "16K-64K")

#: metric -> unit
METRICS: dict[str, str] = {
    "avg_size_bytes": "bytes",
    **{f"buckets.{b}": "packets" for b in BUCKETS},
    "bps": "bytes/s",
    "pps": "packets/s",
}

_SUFFIX = {"K": Decimal(1024), "M": Decimal(1024 * 1024)}
_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "Jan",
            "Feb",
            "Mar",
            "Apr",
            "May",
            "Jun",
            "Jul",
            "Aug",
            "Sep",
            "Oct",
            "Nov",
            "Dec",
        ),
        1,
    )
}


def expand(tok: str) -> int | float | None:
    """netqtop's to_str() undone: '1.17K' -> 1198.08, '90.6M' -> 94999756.8, '88' -> 88."""
    mult = _SUFFIX.get(tok[-1:]) if tok else None
    body = tok[:-1] if mult is not None else tok
    num = to_decimal(body)
    if num is None or num < 0:
        return None
    if mult is not None:
        return dec_to_float(num * mult)
    if "." in body or "e" in body.lower():
        return dec_to_float(num)
    return int(num)


def _header_columns(line: str) -> list[str] | None:
    """Column keys of a 'QueueID avg_size [0, 64) ...' line (labels contain spaces)."""
    rest = line.strip()
    if not rest.startswith("QueueID"):
        return None
    cols: list[str] = []
    while rest:
        for label, key in _HEADERS.items():
            if rest.startswith(label):
                cols.append(key)
                rest = rest[len(label) :].lstrip()
                break
        else:
            return None
    return cols


def _asctime(tokens: list[str]) -> str | None:
    """'Thu Sep 10 11:28:39 2020' -> '2020-09-10T11:28:39'."""
    if len(tokens) != 5 or tokens[1] not in _MONTHS:
        return None
    day, clock, year = tokens[2], tokens[3], tokens[4]
    if not (day.isascii() and day.isdigit() and year.isascii() and year.isdigit()):
        return None
    parts = clock.split(":")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    hh, mm, ss = (int(p) for p in parts)
    try:
        stamp = _dt.datetime(int(year), _MONTHS[tokens[1]], int(day), hh, mm, ss)
    except (ValueError, OverflowError):
        return None
    return stamp.isoformat()


class NetqtopLineParser(LineParser):
    kind = KIND

    def __init__(self) -> None:
        super().__init__()
        self.interface: str | None = None
        self.interval_s: float | None = None
        self.current: JSON | None = None
        self.direction: str | None = None
        self.cols: list[str] = []
        self.count = 0
        self.first_unknown: tuple[int, str] | None = None
        self.started_at = 0

    def _complete(self, reason_line: int | None) -> list[JSON]:
        cur = self.current
        self.current = None
        self.direction = None
        self.cols = []
        if cur is None:
            return []
        for d in ("tx", "rx"):
            table = cur.get(d)
            if table is None:
                self.warn(
                    f"interval at {cur['time']}: no {d.upper()} table (cut off?)",
                    reason_line,
                )
                cur[d] = None
            elif table["total"] is None:
                self.warn(
                    f"interval at {cur['time']}: {d.upper()} table has no Total row (cut off?)",
                    reason_line,
                )
        for d in ("tx", "rx"):
            table = cur[d]
            if table is not None and table["queues"]:
                ids = [q["queue"] for q in table["queues"]]
                if (
                    max(ids) > 4096
                ):  # netqtop handles at most 1024 queues; don't build a huge range
                    continue
                missing = sorted(set(range(max(ids) + 1)) - set(ids))
                if missing:
                    self.warn(
                        f"interval at {cur['time']}: {d.upper()} queues {_ranges(missing)} missing"
                        " (lines left out of the paste?)",
                        reason_line,
                    )
        self.count += 1
        return [cur]

    def feed(self, line: str) -> list[JSON]:
        self.line_no += 1
        n = self.line_no
        stripped = line.strip()
        if not stripped:
            return []
        tokens = stripped.split()
        stamp = _asctime(tokens)
        if stamp is not None:
            out = self._complete(n) if self.current is not None else []
            self.current = {"time": stamp}
            self.started_at = n
            return out
        if set(stripped) == {"-"}:
            return self._complete(n) if self.current is not None else []
        if stripped in ("TX", "RX"):
            if self.current is None:
                self.warn(f"{stripped} table without a timestamp line before it", n)
                self.current = {"time": None}
            self.direction = stripped.lower()
            self.current[self.direction] = {"queues": [], "total": None}
            self.cols = []
            return []
        cols = _header_columns(stripped)
        if cols is not None:
            self.cols = cols
            return []
        if stripped.startswith("#") and "netqtop" in stripped:
            self._command(tokens)
            return []
        if self.cols and self.direction and self.current is not None:
            row = self._row(tokens, n)
            if row is not None:
                table = self.current[self.direction]
                if row.pop("_total"):
                    row.pop("queue")
                    table["total"] = row
                else:
                    table["queues"].append(row)
                return []
        if is_elision(stripped):
            self.warn("lines left out here ('...'); rows are missing", n)
            return []
        if self.first_unknown is None:
            self.first_unknown = (n, line)
        if self.count or self.current is not None:
            self.warn(f"not a netqtop line, ignored: {show(line)}", n)
        return []

    def _command(self, tokens: list[str]) -> None:
        for i, tok in enumerate(tokens[:-1]):
            if tok in ("-n", "--name"):
                self.interface = tokens[i + 1]
            elif tok in ("-i", "--interval"):
                value = to_decimal(tokens[i + 1])
                self.interval_s = float(value) if value is not None else None

    def _row(self, tokens: list[str], n: int) -> JSON | None:
        if len(tokens) != len(self.cols):
            self.warn(
                f"row has {len(tokens)} cells for {len(self.cols)} columns (cut off?); skipped",
                n,
            )
            return None
        row: JSON = {
            "_total": False,
            "queue": None,
            "avg_size_bytes": None,
            "buckets": {},
            "bps": None,
            "pps": None,
        }
        for key, tok in zip(self.cols, tokens):
            if key == "queue":
                if tok == "Total":
                    row["_total"] = True
                elif tok.isascii() and tok.isdigit():
                    row["queue"] = int(tok)
                else:
                    self.warn(f"queue id {tok!r} is not a number; row skipped", n)
                    return None
                continue
            value = expand(tok)
            if value is None:
                self.warn(f"{tok!r} is not a netqtop number; row skipped", n)
                return None
            if key in BUCKETS:
                row["buckets"][key] = value
            else:
                row[key] = value
        return row

    def finish(self) -> list[JSON]:
        out: list[JSON] = []
        if self.current is not None:
            cur = self.current
            if any(cur.get(d) is not None for d in ("tx", "rx")):
                self.warn(
                    f"last interval (line {self.started_at}) has no closing dashed rule (cut off?)"
                )
                out = self._complete(None)
            else:
                self.current = None
        if self.count == 0:
            if self.started_at:
                raise ParseError(
                    "a netqtop timestamp but no TX/RX tables after it", self.started_at
                )
            if self.first_unknown is not None:
                n, line = self.first_unknown
                raise ParseError(
                    f"expected netqtop output (a timestamp, 'TX', 'QueueID avg_size ...'), got {show(line)}",
                    n,
                )
            raise ParseError("no netqtop output: the input is empty", None)
        return out

    def result(self, records: list[JSON]) -> JSON:
        return {
            "interface": self.interface,
            "interval_s": self.interval_s,
            "intervals": records,
            "warnings": list(self.warnings),
        }

    def state(self) -> JSON:
        return {
            "kind": KIND,
            "line_no": self.line_no,
            "interface": self.interface,
            "interval_s": self.interval_s,
            "current": copy.deepcopy(self.current),
            "direction": self.direction,
            "cols": list(self.cols),
            "count": self.count,
            "first_unknown": list(self.first_unknown) if self.first_unknown else None,
            "started_at": self.started_at,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_state(cls, state: JSON) -> NetqtopLineParser:
        p = cls()
        p.line_no = int(state["line_no"])
        p.interface = state["interface"]
        p.interval_s = state["interval_s"]
        p.current = state["current"]
        p.direction = state["direction"]
        p.cols = list(state["cols"])
        p.count = int(state["count"])
        fu = state["first_unknown"]
        p.first_unknown = (int(fu[0]), str(fu[1])) if fu else None
        p.started_at = int(state["started_at"])
        p.warnings = list(state["warnings"])
        return p


def _ranges(ids: list[int]) -> str:
    parts: list[str] = []
    start = prev = ids[0]
    for i in ids[1:] + [-2]:
        if i != prev + 1:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
            start = i
        prev = i
    return ", ".join(parts)


def parse(text: str) -> JSON:
    return parse_lines(NetqtopLineParser(), text)


def sniff(lines: list[str]) -> float:
    for line in lines[:100]:
        if _header_columns(line) is not None:
            return 1.0
    return 0.0
