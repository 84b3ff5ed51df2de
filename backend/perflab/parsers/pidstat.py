"""pidstat (sysstat) reports: a streaming line parser and ``parse()``.

Output schema::

    {"system": {"os": "Linux", "kernel": "6.18.44", "hostname": "vm", "date": "2026-11-22",
                "arch": "_x86_64_", "cpus": 2} | null,         # from the first banner line
     "samples": [{"time": "02:03:54",                          # 24-hour, as printed (12-hour, zh
                                                               # and epoch clocks normalised)
                  "timestamp": "2026-11-22T02:03:54" | "...+00:00" (epoch, -H) | null (no date),
                  "epoch": 1795311997 | null,                  # -H / old -h print epoch seconds
                  "pid": 794, "tid": null | 7516,              # tid set on -t thread rows
                  "uid": 65534 | null, "user": "root" | null,  # -U prints USER instead of UID
                  "command": "nginx",                          # -l: the command line, spaces kept
                  "usr_pct": 3.0, "system_pct": 27.0, ...}],   # the metrics of that table only
     "averages": [{"time": null, "timestamp": null, "pid": 794, ..., all metrics of all tables}],
     "metrics": ["usr_pct", "system_pct", ...],                # metric keys that occur, in order
     "units": {"usr_pct": "%", "cswch_per_s": "/s", "vsz_kb": "KiB", ...},
     "warnings": [...]}

One sample per process row, as pidstat prints them: ``-u -w`` gives two samples per process and
interval (one with CPU metrics, one with context switches); ``-h`` gives one with both. Averages
(``Average:``, ``平均时间:``, ``Durchschn.:`` ... in any locale; ``pidstat -e`` prints them without a
header of their own, under the rows' one) are merged per (pid, tid) since they
are a one-shot summary. ``cpu`` is null in averages (pidstat prints ``-``).

Columns are found by header names (``-T CHILD``'s ``usr-ms``, ``system-ms``, ``minflt-nr`` ... too:
totals in ms and faults since the task started). Decimal commas (de_DE) are read as decimal points.
``--human`` cells are read in the column's unit: sizes carry B/k/M/G/T (powers of 1024; ``212.1M`` VSZ
is 217190.4 KiB, rounded as pidstat printed it) and percentages a ``%``. Dates in
the banner: ISO, ``MM/DD/YY`` (C locale), ``MM/DD/YYYY`` (en_US; ``DD/MM`` when the first field is
above 12), ``DD.MM.YYYY`` (de) and ``YYYY年MM月DD日``; the date rolls over at midnight.
"""

from __future__ import annotations

import datetime as _dt
import functools

from ._common import (
    JSON,
    LineParser,
    ParseError,
    is_elision,
    parse_lines,
    show,
    to_int,
)

KIND = "pidstat"

# header label -> (key, type); type "i" int, "f" float, "s" string
COLUMNS: dict[str, tuple[str, str]] = {
    "UID": ("uid", "i"),
    "USER": ("user", "s"),
    "PID": ("pid", "i"),
    "TGID": ("pid", "i"),
    "TID": ("tid", "i"),
    "%usr": ("usr_pct", "f"),
    "%user": ("usr_pct", "f"),
    "%system": ("system_pct", "f"),
    "%guest": ("guest_pct", "f"),
    "%wait": ("wait_pct", "f"),
    "%CPU": ("cpu_pct", "f"),
    "CPU": ("cpu", "i"),
    "minflt/s": ("minflt_per_s", "f"),
    "majflt/s": ("majflt_per_s", "f"),
    "VSZ": ("vsz_kb", "i"),
    "RSS": ("rss_kb", "i"),
    "%MEM": ("mem_pct", "f"),
    "StkSize": ("stk_size_kb", "i"),
    "StkRef": ("stk_ref_kb", "i"),
    "kB_rd/s": ("kb_rd_per_s", "f"),
    "kB_wr/s": ("kb_wr_per_s", "f"),
    "kB_ccwr/s": ("kb_ccwr_per_s", "f"),
    "iodelay": ("iodelay_ticks", "i"),
    "cswch/s": ("cswch_per_s", "f"),
    "nvcswch/s": ("nvcswch_per_s", "f"),
    "threads": ("threads", "i"),
    "fd-nr": ("fd_nr", "i"),
    "prio": ("prio", "i"),
    "policy": ("policy", "s"),
    # -T CHILD / -T ALL: totals of the task and its children since it started
    "usr-ms": ("usr_ms", "i"),
    "system-ms": ("system_ms", "i"),
    "guest-ms": ("guest_ms", "i"),
    "minflt-nr": ("minflt_nr", "i"),
    "majflt-nr": ("majflt_nr", "i"),
}

#: the per-process metrics a chart can plot: key -> unit
METRICS: dict[str, str] = {
    "usr_pct": "%",
    "system_pct": "%",
    "guest_pct": "%",
    "wait_pct": "%",
    "cpu_pct": "%",
    "minflt_per_s": "/s",
    "majflt_per_s": "/s",
    "vsz_kb": "KiB",
    "rss_kb": "KiB",
    "mem_pct": "%",
    "stk_size_kb": "KiB",
    "stk_ref_kb": "KiB",
    "kb_rd_per_s": "KiB/s",
    "kb_wr_per_s": "KiB/s",
    "kb_ccwr_per_s": "KiB/s",
    "iodelay_ticks": "clock ticks",
    "cswch_per_s": "/s",
    "nvcswch_per_s": "/s",
    "threads": "threads",
    "fd_nr": "fds",
    "prio": "priority",
    "usr_ms": "ms",
    "system_ms": "ms",
    "guest_ms": "ms",
    "minflt_nr": "faults",
    "majflt_nr": "faults",
}
PER_PROCESS_METRICS: tuple[str, ...] = tuple(METRICS)
#: keys that identify the process a sample belongs to (not metrics)
IDENTITY_KEYS: tuple[str, ...] = (
    "time",
    "timestamp",
    "epoch",
    "pid",
    "tid",
    "uid",
    "user",
    "command",
    "cpu",
    "policy",
)

_MERIDIEM_AM = frozenset({"AM", "am", "a.m.", "上午", "午前", "오전"})
_MERIDIEM_PM = frozenset({"PM", "pm", "p.m.", "下午", "午後", "오후"})
_MERIDIEM = _MERIDIEM_AM | _MERIDIEM_PM


def _digit_groups(text: str) -> list[str]:
    groups: list[str] = []
    cur = ""
    for c in text:
        if "0" <= c <= "9":
            cur += c
        elif cur:
            groups.append(cur)
            cur = ""
    if cur:
        groups.append(cur)
    return groups


def parse_date(tok: str) -> str | None:
    """The banner date as YYYY-MM-DD, or None when the format is not one pidstat prints."""
    groups = _digit_groups(tok)
    if len(groups) != 3:
        return None
    a, b, c = (int(g) for g in groups)
    if len(groups[0]) == 4:  # 2026-11-22, 2026年11月22日
        y, m, d = a, b, c
    elif "." in tok or a > 12:  # 22.11.2026 (de)
        d, m, y = a, b, c
    else:  # 11/22/26 (C), 11/22/2026 (en_US)
        m, d, y = a, b, c
    if y < 100:
        y += 2000
    try:
        return _dt.date(y, m, d).isoformat()
    except (ValueError, OverflowError):
        return None


def parse_clock(tokens: list[str]) -> tuple[int, int | None] | None:
    """(seconds of day, epoch or None) from '02:03:54', '01:42:03 AM', '01时42分05秒', '1795311997'."""
    if len(tokens) == 1:
        t = tokens[0]
        if (
            len(t) == 8
            and t[2] == ":" == t[5]
            and (t[:2] + t[3:5] + t[6:]).isdigit()
            and t.isascii()
        ):
            h, m, sec = int(t[:2]), int(t[3:5]), int(t[6:])
            return (
                (h * 3600 + m * 60 + sec, None)
                if h < 24 and m < 60 and sec <= 60
                else None
            )
    text = " ".join(tokens)
    groups = _digit_groups(text)
    if len(groups) == 1 and len(groups[0]) >= 9 and text.isascii() and text.isdigit():
        epoch = int(groups[0])
        return epoch % 86400, epoch
    if len(groups) != 3:
        return None
    h, m, s = (int(g) for g in groups)
    pm = any(t in _MERIDIEM_PM for t in tokens) or any(
        x in text for x in ("下午", "午後", "오후")
    )
    am = any(t in _MERIDIEM_AM for t in tokens) or any(
        x in text for x in ("上午", "午前", "오전")
    )
    if pm and h < 12:
        h += 12
    elif am and h == 12:
        h = 0
    if h > 23 or m > 59 or s > 60:
        return None
    return h * 3600 + m * 60 + s, None


@functools.lru_cache(maxsize=64)
def _day(date: str, offset: int) -> str:
    return (_dt.date.fromisoformat(date) + _dt.timedelta(days=offset)).isoformat()


_NUMBER_START = frozenset("0123456789-+.")


def _number(tok: str, integer: bool) -> int | float | None:
    """A finite ASCII number (decimal comma allowed); fast, since every cell goes through it."""
    if "," in tok:
        tok = tok.replace(",", ".")
    if not tok or tok[0] not in _NUMBER_START or not tok.isascii() or "_" in tok:
        return None
    try:
        value: int | float = int(tok) if integer else float(tok)
    except ValueError:
        return None
    return value if value - value == 0 else None  # inf - inf and nan - nan are nan


# pidstat --human: sizes end in a byte unit (B, k, M, G, T, P, powers of 1024), percentages in '%'
_HUMAN_UNITS = {"B": 1.0, "k": 1024.0, "M": 1024.0**2, "G": 1024.0**3, "T": 1024.0**4, "P": 1024.0**5}


def _human(tok: str, key: str) -> float | None:
    """A ``pidstat --human`` cell in the column's own unit: '212.1M' VSZ -> 217190.4 KiB, '80.0k'
    kB_wr/s -> 80.0, '0.1%' -> 0.1. None when the cell is no such value (or the column takes no unit)."""
    if len(tok) < 2:
        return None
    last = tok[-1]
    value = _number(tok[:-1], False)
    if value is None:
        return None
    if last == "%":
        return value if key.endswith("_pct") else None
    factor = _HUMAN_UNITS.get(last)
    if factor is None or not (key.endswith("_kb") or "_kb_" in key or key.startswith("kb_")):
        return None
    return round(value * factor / 1024, 3)


def _average_label(tok: str) -> bool:
    """'Average:', 'Durchschn.:', '平均时间:': a label ending in ':' without digits (a clock has them)."""
    return tok.endswith(":") and len(tok) > 1 and not any(ch.isdigit() for ch in tok)


_SPECS: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}


def _spec(cols: list[str]) -> list[tuple[str, str, str]]:
    """(label, key, type) per column but Command, computed once per header layout."""
    key = tuple(cols)
    spec = _SPECS.get(key)
    if spec is None:
        spec = [(c, *COLUMNS.get(c, (c, "s"))) for c in cols[:-1]]
        if len(_SPECS) < 256:
            _SPECS[key] = spec
    return spec


class PidstatLineParser(LineParser):
    kind = KIND

    def __init__(self) -> None:
        super().__init__()
        self.system: JSON | None = None
        self.date: str | None = None
        self.day = 0  # days after self.date (midnight rollovers)
        self.last_secs: int | None = None
        self.cols: list[str] = []  # header labels after the time label, Command last
        self.label_len = 1  # tokens of the time label of rows (0: decide per row, -h)
        self.hmode = False
        self.avg_label: list[str] | None = None
        self.avg_cols: list[str] = []
        self.in_average = False
        self.last_pid: int | None = None
        self.rows = 0
        self.metrics: list[str] = []
        self.avg: list[JSON] = []
        self._avg_index: dict[tuple[object, object], JSON] = {}
        self.first_unknown: tuple[int, str] | None = None
        self.first_junk: tuple[int, str] | None = None

    @property
    def averages(self) -> list[JSON]:
        return self.avg

    # -- pieces -------------------------------------------------------------------------------

    def _banner(self, tokens: list[str], n: int) -> None:
        info: JSON = {"os": tokens[0], "kernel": tokens[1] if len(tokens) > 1 else None}
        host = next(
            (t for t in tokens[2:] if t.startswith("(") and t.endswith(")")), None
        )
        info["hostname"] = host[1:-1] if host else None
        date = None
        if host is not None:
            i = tokens.index(host)
            if i + 1 < len(tokens):
                date = parse_date(tokens[i + 1])
                if date is None:
                    self.warn(
                        f"date {tokens[i + 1]!r} not understood; timestamps are null", n
                    )
        info["date"] = date
        info["arch"] = next(
            (t for t in tokens if t.startswith("_") and t.endswith("_")), None
        )
        cpus = None
        for i, t in enumerate(tokens[:-1]):
            if t.startswith("(") and tokens[i + 1].startswith("CPU"):
                cpus = to_int(t[1:])
        info["cpus"] = cpus
        if self.system is None:
            self.system = info
        if date is not None:
            self.date = date
            self.day = 0
            self.last_secs = None

    def _header(self, tokens: list[str], n: int) -> bool:
        first = next((i for i, t in enumerate(tokens) if t in COLUMNS), None)
        if first is None or tokens[-1] != "Command":
            return False
        cols = tokens[first:]
        if any(c not in COLUMNS for c in cols[:-1]):
            unknown = [c for c in cols[:-1] if c not in COLUMNS]
            self.warn(
                f"unrecognised column(s) {' '.join(unknown)}; kept under their own names",
                n,
            )
        label = tokens[:first]
        for c in cols[:-1]:
            key = COLUMNS[c][0] if c in COLUMNS else c
            if key in METRICS and key not in self.metrics:
                self.metrics.append(key)
        if label and label[0].startswith("#"):
            self.hmode, self.label_len, self.cols, self.in_average = (
                True,
                0,
                cols,
                False,
            )
        elif label and not any(ch.isdigit() for ch in " ".join(label)):
            self.avg_label, self.avg_cols, self.in_average = label, cols, True
        elif label:
            self.hmode, self.label_len, self.cols, self.in_average = (
                False,
                len(label),
                cols,
                False,
            )
        else:
            return False
        return True

    def _values(self, tokens: list[str], cols: list[str], n: int) -> JSON | None:
        nmid = len(cols) - 1
        if len(tokens) < nmid + 1:
            self.warn(
                f"row has {len(tokens)} of {nmid + 1}+ fields (cut off?); skipped", n
            )
            return None
        row: JSON = {"pid": None, "tid": None, "uid": None, "user": None}
        for (label, key, typ), tok in zip(_spec(cols), tokens):
            if tok == "-":
                row[key] = None
            elif typ == "s":
                row[key] = tok
            else:
                value = _number(tok, typ == "i")
                if value is None:
                    value = _human(tok, key)
                if value is None:
                    self.warn(f"{label} is {tok!r}, not a number; row skipped", n)
                    return None
                row[key] = value
        command = " ".join(tokens[nmid:])
        if row["pid"] is None and row["tid"] is not None:
            row["pid"] = self.last_pid  # -t: thread rows sit under their process row
            command = command.removeprefix("|__")
        elif row["tid"] is None:
            self.last_pid = row["pid"]
        row["command"] = command
        return row

    def _clock(self, tokens: list[str], commit: bool) -> tuple[JSON, int] | None:
        k = self.label_len
        if self.hmode:
            k = 2 if len(tokens) > 1 and tokens[1] in _MERIDIEM else 1
        clock = parse_clock(tokens[:k])
        if clock is None:
            return None
        secs, epoch = clock
        out: JSON = {
            "time": f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}",
            "timestamp": None,
            "epoch": epoch,
        }
        if epoch is not None:
            stamp = (
                _dt.datetime.fromtimestamp(epoch, _dt.UTC)
                if epoch < 253402300800
                else None
            )
            out["timestamp"] = stamp.isoformat() if stamp else None
        elif self.date is not None and commit:
            # Midnight: the clock jumps back by most of a day. Small steps back are normal (the
            # header of a report block carries the previous interval's time).
            if self.last_secs is not None and secs < self.last_secs - 43200:
                self.day += 1
            self.last_secs = secs
            out["timestamp"] = f"{_day(self.date, self.day)}T{out['time']}"
        return out, k

    # -- streaming API -----------------------------------------------------------------------

    def feed(self, line: str) -> list[JSON]:
        self.line_no += 1
        n = self.line_no
        tokens = line.split()
        if not tokens:
            return []
        if (
            self.avg_label is not None
            and tokens[: len(self.avg_label)] == self.avg_label
        ):
            rest = tokens[len(self.avg_label) :]
            if rest and rest[-1] == "Command" and rest[0] in COLUMNS:
                self._header(tokens, n)
                return []
            row = self._values(rest, self.avg_cols, n)
            if row is not None:
                self._merge_average(row)
            return []
        if self.cols and tokens[0][:1].isdigit():
            is_header = tokens[-1] == "Command" and any(
                t in COLUMNS for t in tokens[1:3]
            )
            clock = self._clock(tokens, commit=not is_header)
            if clock is not None:
                stamp, k = clock
                rest = tokens[k:]
                if is_header and rest and rest[-1] == "Command" and rest[0] in COLUMNS:
                    self._header(tokens, n)
                    return []
                row = self._values(rest, self.cols, n)
                if row is None:
                    return []
                self.rows += 1
                return [{**stamp, **row}]
        if tokens[-1] == "Command" and self._header(tokens, n):
            return []
        if self.cols and self.avg_label is None and _average_label(tokens[0]) and len(tokens) > len(self.cols):
            # pidstat -e with one report prints its Average rows under the time rows' header, without
            # one of their own: the label ("Average:", "Durchschn.:") stands where the time stood.
            row = self._values(tokens[1:], self.cols, n)
            if row is not None:
                self.avg_label, self.avg_cols = [tokens[0]], list(self.cols)
                self._merge_average(row)
                return []
        if tokens[0] in ("Linux", "SunOS", "FreeBSD") and "CPU)" in tokens:
            self._banner(tokens, n)
            return []
        stripped = line.strip()
        if is_elision(stripped):
            self.warn("lines left out here ('...'); samples are missing", n)
            return []
        if self.first_unknown is None:
            self.first_unknown = (n, line)
        if self.cols or self.avg_label:
            if self.first_junk is None:
                self.first_junk = (n, line)
            self.warn(f"not a pidstat row, ignored: {show(line)}", n)
        return []

    def _merge_average(self, row: JSON) -> None:
        # an index, not a scan: `pidstat -t -p ALL` averages thousands of threads
        if len(self._avg_index) != len(self.avg):
            self._avg_index = {(a["pid"], a["tid"]): a for a in self.avg}
        avg = self._avg_index.get((row["pid"], row["tid"]))
        if avg is None:
            avg = {"time": None, "timestamp": None, "epoch": None, **row}
            self.avg.append(avg)
            self._avg_index[(row["pid"], row["tid"])] = avg
            return
        for key, value in row.items():
            if value is not None or key not in avg:
                avg[key] = value

    def finish(self) -> list[JSON]:
        if not self.cols and self.avg_label is None:
            if self.first_unknown is not None:
                n, line = self.first_unknown
                raise ParseError(
                    f"expected a pidstat header ('... PID ... Command'), got {show(line)}",
                    n,
                )
            raise ParseError("no pidstat output: the input is empty", None)
        if self.rows == 0 and not self.avg:
            if self.first_junk is not None:
                n, line = self.first_junk
                raise ParseError(
                    f"expected pidstat rows under the header, got {show(line)}", n
                )
            self.warn("no process rows: no process matched the selection")
        return []

    def result(self, records: list[JSON]) -> JSON:
        return {
            "system": self.system,
            "samples": records,
            "averages": self.avg,
            "metrics": list(self.metrics),
            "units": {m: METRICS[m] for m in self.metrics},
            "warnings": list(self.warnings),
        }

    def state(self) -> JSON:
        return {
            "kind": KIND,
            "line_no": self.line_no,
            "system": self.system,
            "date": self.date,
            "day": self.day,
            "last_secs": self.last_secs,
            "cols": list(self.cols),
            "label_len": self.label_len,
            "hmode": self.hmode,
            "avg_label": self.avg_label,
            "avg_cols": list(self.avg_cols),
            "in_average": self.in_average,
            "last_pid": self.last_pid,
            "rows": self.rows,
            "metrics": list(self.metrics),
            "averages": [dict(a) for a in self.avg],
            "first_unknown": list(self.first_unknown) if self.first_unknown else None,
            "first_junk": list(self.first_junk) if self.first_junk else None,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_state(cls, state: JSON) -> PidstatLineParser:
        p = cls()
        p.line_no = int(state["line_no"])
        p.system = state["system"]
        p.date = state["date"]
        p.day = int(state["day"])
        p.last_secs = state["last_secs"]
        p.cols = list(state["cols"])
        p.label_len = int(state["label_len"])
        p.hmode = bool(state["hmode"])
        p.avg_label = (
            list(state["avg_label"]) if state["avg_label"] is not None else None
        )
        p.avg_cols = list(state["avg_cols"])
        p.in_average = bool(state["in_average"])
        p.last_pid = state["last_pid"]
        p.rows = int(state["rows"])
        p.metrics = list(state["metrics"])
        p.avg = [dict(a) for a in state["averages"]]
        fu, fj = state["first_unknown"], state["first_junk"]
        p.first_unknown = (int(fu[0]), str(fu[1])) if fu else None
        p.first_junk = (int(fj[0]), str(fj[1])) if fj else None
        p.warnings = list(state["warnings"])
        return p


def parse(text: str) -> JSON:
    return parse_lines(PidstatLineParser(), text)


def sniff(lines: list[str]) -> float:
    for line in lines[:50]:
        tokens = line.split()
        if (
            len(tokens) >= 3
            and tokens[-1] == "Command"
            and ("PID" in tokens or "TID" in tokens)
        ):
            return 1.0
    return 0.0
