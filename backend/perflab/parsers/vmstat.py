"""vmstat (procps / procps-ng) tables: a streaming line parser and ``parse()``.

Output schema::

    {"columns": ["r", "b", "swpd", ..., "st", "gu"],   # canonical names, in the order printed
     "samples": [{"r": 4, "b": 0, ..., "st": 4,          # one int per column
                  "since_boot": true,                     # the first row averages since boot
                  "timestamp": "2026-11-22T02:03:53+00:00" | "2021-09-16T20:33:13" | null,
                  "tz": "UTC" | "PDT" | null}],           # -t only: the label vmstat printed
     "units": {"r": "procs", "free": "KiB", "si": "KiB/s", "bi": "blocks/s", "in": "/s", "us": "%", ...},
     "memory_unit": "KiB", "memory_unit_source": "default" | "command line" | "option",
     "timezone": "UTC" | null,
     "warnings": ["line 5: ..."]}

Columns are found by header names, never by position: the default, ``-a`` (inact/active),
``-w`` (wide, ``--procs--``), ``-t`` (a trailing date and time under a time-zone label), ``gu``
(procps-ng >= 4.0.3), repeated headers, and headers translated by procps-ng's message catalogs
(zh_CN, ko, pl, sv, de, fr, ...) are understood.

Timestamps: vmstat -t prints local time and a zone abbreviation. UTC/GMT and numeric offsets
get an explicit offset; any other abbreviation ("PDT", "CST") is ambiguous, so the timestamp stays
local (no offset) with one warning, and the label is kept in ``tz``.

Units: vmstat's output does not say which ``-S`` unit was used. The memory columns (swpd, free,
buff, cache, inact, active) and swap traffic (si, so) are KiB unless a ``vmstat -S M ...`` command
line is part of the pasted text or the caller passes ``memory_unit``; ``memory_unit_source`` says
which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._common import JSON, LineParser, ParseError, is_elision, parse_lines, show, to_int

KIND = "vmstat"

MEMORY_COLUMNS = ("swpd", "free", "buff", "cache", "inact", "active")
SWAP_COLUMNS = ("si", "so")

#: metric name -> unit, for the default ``-S K``; per parse, see ``units`` in the result.
METRICS: dict[str, str] = {
    "r": "procs",
    "b": "procs",
    "swpd": "KiB",
    "free": "KiB",
    "buff": "KiB",
    "cache": "KiB",
    "inact": "KiB",
    "active": "KiB",
    "si": "KiB/s",
    "so": "KiB/s",
    "bi": "blocks/s",
    "bo": "blocks/s",
    "in": "/s",
    "cs": "/s",
    "us": "%",
    "sy": "%",
    "id": "%",
    "wa": "%",
    "st": "%",
    "gu": "%",
}

# -S k/K/m/M: 1000, 1024, 1e6, 1048576 bytes.
MEMORY_UNITS = {"k": "kB", "K": "KiB", "m": "MB", "M": "MiB"}

# Labels translated by procps-ng's catalogs (read from the .mo files of procps-ng 4.0.2).
# A list when one translation stands for two columns (ko: "입" is both si and bi): the first
# unused one wins, since swap comes before io in every layout.
TRANSLATED: dict[str, list[str]] = {
    "交换": ["swpd"],
    "空闲": ["free"],
    "缓冲": ["buff"],
    "缓存": ["cache"],
    "不活动": ["inact"],
    "活动": ["active"],
    "스왑": ["swpd"],
    "가용": ["free"],
    "버퍼": ["buff"],
    "캐시": ["cache"],
    "비활": ["inact"],
    "활성": ["active"],
    "입": ["si", "bi"],
    "출": ["so", "bo"],
    "dz": ["r"],
    "bl": ["b"],
    "swap": ["swpd"],
    "wolna": ["free"],
    "bufor": ["buff"],
    "nieakt": ["inact"],
    "akt": ["active"],
    "uż": ["us"],
    "be": ["id"],
    "io": ["wa"],
    "sk": ["st"],
    "go": ["gu"],
    "k": ["r"],
    "växl": ["swpd"],
    "fritt": ["free"],
    "inakt": ["inact"],
    "aktivt": ["active"],
    "vi": ["si"],
    "vu": ["so"],
    "bu": ["bo"],
    "avb": ["in"],
    "ktxb": ["cs"],
    "an": ["us"],
    "ia": ["id"],
    "vä": ["wa"],
    "gä": ["gu"],
    "frei": ["free"],
    "Cache": ["cache"],
    "aktiv": ["active"],
    "libre": ["free"],
    "búf": ["buff"],
    "caché": ["cache"],
    "activo": ["active"],
    "tampon": ["buff"],
    "actif": ["active"],
    "თავისუფალია": ["free"],
    "აქტიური": ["active"],
    "livre": ["free"],
    "inativ": ["inact"],
    "ativo": ["active"],
    "liber": ["free"],
    "activă": ["active"],
    "sin": ["si"],
    "bin": ["bi"],
    "кеш": ["cache"],
    "активно": ["active"],
    "trống": ["free"],
    "nhớtạm": ["cache"],
    "hđộng": ["active"],
}

_UTC_NAMES = frozenset({"UTC", "GMT", "UCT", "Z", "Universal", "Zulu"})


def _tz_offset(label: str) -> str | None:
    """'+00:00' for UTC-like labels, '+05:30' for '+0530' or '+05'; None when unknown."""
    if label in _UTC_NAMES:
        return "+00:00"
    if (
        len(label) in (3, 5)
        and label[0] in "+-"
        and label[1:].isascii()
        and label[1:].isdigit()
    ):
        hours = label[1:3]
        minutes = label[3:5] if len(label) == 5 else "00"
        return f"{label[0]}{hours}:{minutes}"
    return None


def _is_group_header(tokens: list[str]) -> bool:
    # "procs -----------memory---------- ---swap-- ..." in any language: dashes everywhere.
    dashed = sum(1 for t in tokens if "--" in t)
    return dashed >= 3 and dashed >= len(tokens) - 1


def _looks_like_date(tok: str) -> bool:
    return (
        len(tok) == 10
        and tok[4] == "-"
        and tok[7] == "-"
        and tok.replace("-", "").isdigit()
    )


def _looks_like_time(tok: str) -> bool:
    return (
        len(tok) == 8
        and tok[2] == ":"
        and tok[5] == ":"
        and tok.replace(":", "").isdigit()
    )


def _memory_unit_from_command(line: str) -> str | None:
    """'-S M' from a pasted 'vmstat -S M 1 5' / 'vmstat -SM 1' / 'vmstat --unit m' line."""
    words = line.replace("=", " ").split()
    if "vmstat" not in words and not any(w.endswith("/vmstat") for w in words):
        return None
    for i, w in enumerate(words):
        if w in ("-S", "--unit", "--unit-character") and i + 1 < len(words):
            return words[i + 1][:1] if words[i + 1][:1] in MEMORY_UNITS else None
        if w.startswith("-") and not w.startswith("--") and "S" in w:
            rest = w[w.index("S") + 1 :]
            if rest[:1] in MEMORY_UNITS:
                return rest[:1]
            if not rest and i + 1 < len(words) and words[i + 1][:1] in MEMORY_UNITS:
                return words[i + 1][:1]
    return None


class Rows:
    """Data rows of one header, as ``VmstatLineParser.feed_rows`` returns them: what ``feed()`` would
    have returned for each, without a dict (or a list) per row; ``records()`` builds those. (A plain
    class: a dataclass would import ``inspect`` into every ``perflab parse``.)"""

    __slots__ = ("at", "columns", "since_boot", "stamps", "tz", "values")

    def __init__(self, columns: list[str], tz: str | None, since_boot: bool, values: list[int]) -> None:
        self.columns = columns  # the header in force (the parser's own list: not to be changed)
        self.tz = tz
        self.since_boot = since_boot  # the first row is vmstat's first (averages since boot)
        self.at: list[int] = []  # each row's index in the lines given
        # every row's numbers, one after the other: len(columns) a row (column c of every row: values[c::width])
        self.values = values
        self.stamps: list[str | None] = []  # each row's "timestamp"

    def records(self) -> list[JSON]:
        """The rows as ``feed()`` returns them."""
        out: list[JSON] = []
        width = len(self.columns)
        for j, stamp in enumerate(self.stamps):
            sample: JSON = dict(zip(self.columns, self.values[j * width:(j + 1) * width]))
            sample["since_boot"] = self.since_boot and j == 0
            sample["timestamp"] = stamp
            sample["tz"] = self.tz
            out.append(sample)
        return out


class VmstatLineParser(LineParser):
    kind = KIND

    def __init__(self, memory_unit: str | None = None) -> None:
        super().__init__()
        if memory_unit is not None and memory_unit not in MEMORY_UNITS:
            raise ValueError(f"memory_unit must be one of {sorted(MEMORY_UNITS)}")
        self.memory_unit = memory_unit or "K"
        self.memory_unit_source = "option" if memory_unit else "default"
        self.columns: list[str] = []
        self.tz: str | None = None
        self.timezone: str | None = None
        self.rows = 0
        self.first_unknown: tuple[int, str] | None = None
        self.unknown_lines = 0
        self.first_junk: tuple[int, str] | None = None
        self.warned_tz = False

    # -- header handling ---------------------------------------------------------------------

    def _header(self, tokens: list[str]) -> list[str] | None:
        """Canonical columns for a column-label line, or None if it is not one."""
        if len(tokens) < 6:
            return None
        known = 0
        used: set[str] = set()
        cols: list[str] = []
        for tok in tokens:
            if tok in METRICS and tok not in used:
                cols.append(tok)
                known += 1
            elif tok in TRANSLATED:
                name = next((c for c in TRANSLATED[tok] if c not in used), tok)
                cols.append(name)
                known += 1
            else:
                cols.append(tok)
            used.add(cols[-1])
        # Enough English or translated labels, and 'r b' (or their translations) leading.
        if known < len(tokens) - 2 or known < 6:
            return None
        return cols

    def _set_columns(self, cols: list[str], line_no: int) -> None:
        tz: str | None = None
        if cols and cols[-1] not in METRICS:
            tz = cols.pop()  # -t: the zone label stands over the date and time
        unknown = [c for c in cols if c not in METRICS]
        for c in unknown:
            self.warn(f"unrecognised column label {c!r} kept as is", line_no)
        if self.columns and cols != self.columns:
            self.warn("the header changed; columns follow the new header", line_no)
        self.columns = cols
        if tz is not None:
            if self.tz is not None and tz != self.tz:
                self.warn(f"time zone changed from {self.tz} to {tz}", line_no)
            self.tz = tz
            if self.timezone is None:
                self.timezone = tz
            if _tz_offset(tz) is None and not self.warned_tz:
                self.warned_tz = True
                self.warn(
                    f"time zone {tz!r} has no unambiguous offset; timestamps are local times",
                    line_no,
                )
        else:
            self.tz = None

    # -- streaming API -----------------------------------------------------------------------

    def feed_rows(self, lines: Sequence[str]) -> list[Rows]:
        """``feed()`` of every line, in order, with the data rows returned as runs of rows under one
        header instead of a dict each: the parser ends in the same state, with the same warnings (same
        line numbers). A 10 MB `vmstat -t 1` log is 94,000 such rows; a dict per row was most of an
        import's parse. Any line that is not a plain row of the current header goes through feed()."""
        out: list[Rows] = []
        run: Rows | None = None
        first = self.line_no  # line numbers: first + index + 1
        rows = self.rows
        cols = self.columns
        ncols = len(cols)
        tz = self.tz
        wide = ncols + 2 if tz is not None else -1  # a -t row: the numbers, a date and a time
        offset = (_tz_offset(tz) or "") if tz is not None else ""
        good_date = ""
        # Numbers go into one flat list: a list per row would be a container the cyclic GC walks, again
        # and again, while a block's rows are kept.
        flat: list[int] = []
        extend = flat.extend
        at_append = stamp_append = None
        for i, line in enumerate(lines):
            tokens = line.split()
            ntok = len(tokens)
            if not ntok:
                continue  # feed() counts the line and returns
            # The conditions of feed()'s fast path, in its order.
            if ncols and (ntok == ncols or ntok == wide) and line.isascii() and "_" not in line:
                before = len(flat)
                try:
                    extend(map(int, tokens[:ncols]))
                except ValueError:
                    del flat[before:]
                else:
                    if run is None or at_append is None or stamp_append is None:
                        run = Rows(cols, tz, since_boot=not rows, values=flat)
                        out.append(run)
                        at_append, stamp_append = run.at.append, run.stamps.append
                    rows += 1
                    at_append(i)
                    if tz is None:
                        stamp_append(None)
                    elif ntok == ncols:
                        self.warn("row without its timestamp", first + i + 1)
                        stamp_append(None)
                    else:
                        d, t = tokens[ncols], tokens[ncols + 1]
                        # _looks_like_date and _looks_like_time, inline; a log prints one date for hours
                        if (d == good_date or _looks_like_date(d)) and (
                                len(t) == 8 and t[2] == ":" and t[5] == ":" and t.replace(":", "").isdigit()):
                            good_date = d
                            stamp_append(f"{d}T{t}{offset}")
                        else:
                            self.warn(f"unreadable timestamp {d} {t!r}", first + i + 1)
                            stamp_append(None)
                    continue
            self.line_no = first + i
            self.rows = rows
            self.feed(line)  # no record: feed() returns one only for the rows above
            if self.columns != cols or self.tz != tz:
                run = at_append = stamp_append = None
                flat = []
                extend = flat.extend
                cols = self.columns
                ncols = len(cols)
                tz = self.tz
                wide = ncols + 2 if tz is not None else -1
                offset = (_tz_offset(tz) or "") if tz is not None else ""
        self.line_no = first + len(lines)
        self.rows = rows
        return out

    def feed(self, line: str) -> list[JSON]:
        self.line_no += 1
        n = self.line_no
        tokens = line.split()
        if not tokens:
            return []
        cols = self.columns
        ncols = len(cols)
        # Fast path: a data row of the current header.
        ntok = len(tokens)
        tz = self.tz
        # int() alone would accept '1_000' and non-ASCII digits; one check per line is cheap.
        if (
            ncols
            and (ntok == ncols or (tz is not None and ntok == ncols + 2))
            and line.isascii()
            and "_" not in line
        ):
            try:
                values: list[int] | None = list(map(int, tokens[:ncols]))
            except ValueError:
                values = None
            if values is not None:
                sample: dict[str, Any] = dict(zip(cols, values))
                sample["since_boot"] = not self.rows
                self.rows += 1
                if tz is None:
                    sample["timestamp"] = None
                    sample["tz"] = None
                    return [sample]
                stamp: str | None = None
                if ntok == ncols:
                    self.warn("row without its timestamp", n)
                else:
                    d, t = tokens[ncols], tokens[ncols + 1]
                    if _looks_like_date(d) and _looks_like_time(t):
                        stamp = f"{d}T{t}{_tz_offset(tz) or ''}"
                    else:
                        self.warn(f"unreadable timestamp {d} {t!r}", n)
                sample["timestamp"] = stamp
                sample["tz"] = tz
                return [sample]
        stripped = line.strip()
        if _is_group_header(tokens):
            return []
        header = self._header(tokens)
        if header is not None:
            self._set_columns(header, n)
            return []
        if is_elision(stripped):
            self.warn("lines left out here ('...'); samples are missing", n)
            return []
        unit = _memory_unit_from_command(stripped)
        if unit is not None and self.memory_unit_source != "option":
            self.memory_unit = unit
            self.memory_unit_source = "command line"
            return []
        if ncols and all(to_int(t) is not None for t in tokens):
            self.warn(
                f"row has {len(tokens)} values for {ncols} columns (cut off?); skipped",
                n,
            )
            return []
        self.unknown_lines += 1
        if self.first_unknown is None:
            self.first_unknown = (n, line)
        if ncols:
            if self.first_junk is None:
                self.first_junk = (n, line)
            self.warn(f"not a vmstat row, ignored: {show(line)}", n)
        return []

    def finish(self) -> list[JSON]:
        if not self.columns:
            if self.first_unknown is not None:
                n, line = self.first_unknown
                raise ParseError(
                    "expected a vmstat header ('procs ---memory--- ...' then 'r b swpd free ...'),"
                    f" got {show(line)}",
                    n,
                )
            raise ParseError("no vmstat output: the input is empty", None)
        if self.rows == 0:
            if self.first_junk is not None:
                n, line = self.first_junk
                raise ParseError(
                    f"expected vmstat rows under the header, got {show(line)}", n
                )
            self.warn("a header but no samples")
        return []

    def units(self) -> dict[str, str]:
        mem = MEMORY_UNITS[self.memory_unit]
        out: dict[str, str] = {}
        for c in self.columns:
            if c in MEMORY_COLUMNS:
                out[c] = mem
            elif c in SWAP_COLUMNS:
                out[c] = mem + "/s"
            elif c in METRICS:
                out[c] = METRICS[c]
        return out

    def result(self, records: list[JSON]) -> JSON:
        return {
            "columns": list(self.columns),
            "samples": records,
            "units": self.units(),
            "memory_unit": MEMORY_UNITS[self.memory_unit],
            "memory_unit_source": self.memory_unit_source,
            "timezone": self.timezone,
            "warnings": list(self.warnings),
        }

    def state(self) -> JSON:
        return {
            "kind": KIND,
            "line_no": self.line_no,
            "columns": list(self.columns),
            "tz": self.tz,
            "timezone": self.timezone,
            "rows": self.rows,
            "memory_unit": self.memory_unit,
            "memory_unit_source": self.memory_unit_source,
            "first_unknown": list(self.first_unknown) if self.first_unknown else None,
            "unknown_lines": self.unknown_lines,
            "first_junk": list(self.first_junk) if self.first_junk else None,
            "warned_tz": self.warned_tz,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_state(cls, state: JSON) -> VmstatLineParser:
        p = cls()
        p.line_no = int(state["line_no"])
        p.columns = list(state["columns"])
        p.tz = state["tz"]
        p.timezone = state["timezone"]
        p.rows = int(state["rows"])
        p.memory_unit = state["memory_unit"]
        p.memory_unit_source = state["memory_unit_source"]
        fu = state["first_unknown"]
        p.first_unknown = (int(fu[0]), str(fu[1])) if fu else None
        p.unknown_lines = int(state["unknown_lines"])
        fj = state["first_junk"]
        p.first_junk = (int(fj[0]), str(fj[1])) if fj else None
        p.warned_tz = bool(state["warned_tz"])
        p.warnings = list(state["warnings"])
        return p


def parse(text: str, memory_unit: str | None = None) -> JSON:
    return parse_lines(VmstatLineParser(memory_unit), text)


def sniff(lines: list[str]) -> float:
    """Confidence that these lines are vmstat output."""
    p = VmstatLineParser()
    for line in lines[:50]:
        tokens = line.split()
        if (
            _is_group_header(tokens)
            and tokens
            and ("memory" in line or "procs" in line)
        ):
            return 1.0
        if p._header(tokens) is not None and tokens[0] in ("r", "dz", "k"):
            return 0.9
    return 0.0
