"""``perf stat`` counter summaries: the default text layout, ``-x,`` CSV and ``-j`` JSON, with
``-r N`` repeats, ``-I`` intervals and ``-A`` per-CPU counts.

Output schema::

    {"format": "text" | "csv" | "json",
     "target": "python3 -c sum(range(3000000))" | "system wide" | null,
     "counters": [{"event": "task-clock", "value": 267.9 | null, "unit": "msec" | "",
                   "supported": true,                 # false for <not supported>
                   "counted": true,                   # false for <not counted>
                   "metric_value": 0.502 | null, "metric_unit": "CPUs utilized" | null,
                                                      # '5.79% of all branches' -> 5.79,
                                                      # "% of all branches"
                   "pct_running": 100.0 | null,       # CSV/JSON; text only when multiplexed
                   "variance_pct": 1.23 | null,       # '( +-  1.23% )' with -r
                   "time_s": 0.100146187,             # -I only: the interval's end
                   "cpu": "0"}],                      # -A only
     "decimal_mark": "." | ",",                       # as the text output printed numbers
     "elapsed_s": 0.533609108 | null,                 # with -r: the mean
     "elapsed_stdev_s": 0.0154 | null,                # -r: '0.0361 +- 0.0154 seconds time elapsed'
     "elapsed_variance_pct": 42.65 | null,            # -r: '( +- 42.65% )'
     "user_s": 0.164985 | null, "sys_s": 0.072993 | null,
     "warnings": [...]}

``value`` is in the counter's own ``unit`` (msec for task-clock, events otherwise); every counter
line is kept, ``<not counted>`` and ``<not supported>`` ones with a null value. Text output is
printed in the user's locale: the decimal mark is read from the numbers that show it
('218,07 msec', '0,915133415 seconds' under de_DE, where '9.634 page-faults' then means 9634),
thousands separators ('1,432' in en_US, '9.634' in de_DE, '9 634' with U+202F in fr_FR/ru_RU)
are removed, and a number whose groups are not of three digits is refused (exit 2 naming the
line), never read as something else. Older perf (3.x, CentOS 7) layouts are read too: the unit after
the event (``task-clock (msec)``) and the counted share in brackets (``[83.33%]``). ``-x,`` and ``-j`` output printed under a decimal-comma
locale is ambiguous CSV or invalid JSON: refused, asking for ``LC_ALL=C``.
"""

from __future__ import annotations

import json
import math
import re

from ._common import (
    JSON,
    ParseError,
    decimal_mark,
    is_elision,
    join_grouped,
    show,
    split_lines,
    to_float,
    to_grouped_float,
)

KIND = "perf-stat"

# a number with a decimal comma where JSON wants a value: '"pcnt-running" : 100,00,'
_COMMA_JSON = re.compile(r'" : [0-9]+,[0-9]+[,}]')

#: each counter carries its own unit ("msec" for task-clock, events otherwise)
METRICS: dict[str, str] = {
    "counters.*.value": "see unit",
    "elapsed_s": "s",
    "user_s": "s",
    "sys_s": "s",
}


_UNITS = frozenset({"msec", "usec", "ns", "Joules", "MiB", "ms", "W", "Watts"})
_EVENT_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:./=,"
)


def _event_name(tok: str) -> bool:
    return tok.isascii() and set(tok) <= _EVENT_CHARS and tok[0].isalpha()


def _counter(event: str, value: float | None, unit: str, raw: str) -> JSON:
    return {
        "event": event,
        "value": value,
        "unit": unit,
        "supported": raw != "<not supported>",
        "counted": raw != "<not counted>",
        "metric_value": None,
        "metric_unit": None,
        "pct_running": None,
        "variance_pct": None,
    }


def _parse_json(lines: list[tuple[int, str]], out: JSON) -> None:
    for n, line in lines:
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            if '"counter-value"' in line and _COMMA_JSON.search(line):
                raise ParseError(
                    "perf stat -j printed decimal commas (a locale such as de_DE), which is"
                    " not JSON; re-run it with LC_ALL=C",
                    n,
                ) from None
            out["warnings"].append(
                f"line {n}: not a JSON object, ignored: {show(line)}"
            )
            continue
        if not isinstance(obj, dict) or "event" not in obj:
            out["warnings"].append(f"line {n}: JSON without an 'event', ignored")
            continue
        raw = str(obj.get("counter-value", ""))
        c = _counter(str(obj["event"]), to_float(raw), str(obj.get("unit", "")), raw)
        mv = obj.get("metric-value")
        if (
            isinstance(mv, (int, float))
            and c["supported"]
            and c["counted"]
            and math.isfinite(mv)
        ):
            c["metric_value"] = float(mv)
        if c["metric_value"] is not None:
            c["metric_unit"] = str(obj.get("metric-unit") or "") or None
        pr = obj.get("pcnt-running")
        if isinstance(pr, (int, float)) and math.isfinite(pr):
            c["pct_running"] = float(pr)
        var = obj.get("variance")
        if isinstance(var, (int, float)) and math.isfinite(var):
            c["variance_pct"] = float(var)
        interval = obj.get("interval")
        if isinstance(interval, (int, float)) and math.isfinite(interval):
            c["time_s"] = float(interval)
        if "cpu" in obj:
            c["cpu"] = str(obj["cpu"])
        if raw and c["value"] is None and not raw.startswith("<"):
            raise ParseError(f"counter value {raw!r} is not a number", n)
        out["counters"].append(c)


def _parse_csv(lines: list[tuple[int, str]], out: JSON) -> None:
    for n, line in lines:
        f = line.split(",")
        if len(f) < 3:
            out["warnings"].append(
                f"line {n}: not a perf stat -x, row, ignored: {show(line)}"
            )
            continue
        extra: JSON = {}
        if len(f) >= 4 and (to_float(f[1]) is not None or f[1].startswith("<not")):
            t = to_float(f[0].strip())
            if t is not None and "." in f[0]:
                extra["time_s"] = t  # -I: the interval's time first
                f = f[1:]
        if f[0].startswith("CPU") and f[0][3:].isdigit():
            extra["cpu"] = f[0][3:]  # -A: the CPU first
            f = f[1:]
        if len(f) < 3:
            out["warnings"].append(
                f"line {n}: not a perf stat -x, row, ignored: {show(line)}"
            )
            continue
        if (
            len(f) >= 4
            and f[0].isdigit()
            and f[1].isdigit()
            and (f[2] in _UNITS or f[2] == "")
            and _event_name(f[3])
        ):
            raise ParseError(
                "perf stat -x, printed decimal commas (a locale such as de_DE), so the"
                " fields cannot be told apart; re-run it with LC_ALL=C or -x';'",
                n,
            )
        raw, unit, event = f[0], f[1], f[2]
        value = to_float(raw)
        if value is None and not raw.startswith("<"):
            out["warnings"].append(
                f"line {n}: counter value {raw!r} is not a number, ignored"
            )
            continue
        c = _counter(event, value, unit, raw)
        c.update(extra)
        rest = f[3:]
        # -r adds a variance field ("1.23%") right after the event
        if rest and rest[0].endswith("%"):
            c["variance_pct"] = to_float(rest[0][:-1])
            rest = rest[1:]
        if len(rest) >= 2:
            c["pct_running"] = to_float(rest[1])
        if len(rest) >= 4 and rest[2]:
            c["metric_value"] = to_float(rest[2])
            c["metric_unit"] = rest[3] or None
        out["counters"].append(c)


def _mark_of(lines: list[tuple[int, str]]) -> str:
    """The decimal mark of a text output: perf prints numbers in the user's locale
    ('218,07 msec', '0,915133415 seconds', '9.634 page-faults' in de_DE)."""
    tokens: list[str] = []
    for _, line in lines:
        if "," in line or "." in line:
            words = join_grouped(line).replace("#", " ").split()[:8]
            tokens.extend(w for w in words if w[:1].isdigit() and ("," in w or "." in w))
    return decimal_mark(tokens) or "."


def _interval_or_cpu(tokens: list[str], mark: str, c: JSON) -> list[str]:
    """-I puts the time first ('0.100146187  0.67 msec task-clock'), -A the CPU ('CPU0  102.69
    msec task-clock'); both are taken off the front and kept on the counter."""
    if len(tokens) >= 3 and (
        _num(tokens[1], mark) is not None or tokens[1].startswith("<not")
    ):
        t = _num(tokens[0], mark)
        if t is not None and (mark in tokens[0] or "." in tokens[0]):
            c["time_s"] = t
            tokens = tokens[1:]
    if tokens and tokens[0].startswith("CPU") and tokens[0][3:].isdigit():
        c["cpu"] = tokens[0][3:]
        tokens = tokens[1:]
    return tokens


def _num(tok: str, mark: str) -> float | None:
    return to_grouped_float(tok, mark)


def _metric(metric: str, mark: str, c: JSON) -> None:
    """'#    0,190 CPUs utilized', '#    5.79% of all branches', '#  1.553 K/sec'."""
    body = metric
    if "(" in body and body.rstrip().endswith(")"):
        body = body[: body.rfind("(")]
    elif "[" in body and body.rstrip().endswith("%]"):
        body = body[: body.rfind("[")]  # perf 3.x's counted share
    m = body.split()
    if not m:
        return
    head = m[0]
    pct = head.endswith("%") and len(head) > 1
    value = _num(head[:-1] if pct else head, mark)
    if value is None:
        return
    c["metric_value"] = value
    unit = " ".join(m[1:])
    c["metric_unit"] = (f"% {unit}" if unit else "%") if pct else (unit or None)


def _parse_text(lines: list[tuple[int, str]], out: JSON) -> None:
    mark = _mark_of(lines)
    out["decimal_mark"] = mark
    for n, line in lines:
        s = join_grouped(line.strip())
        if s.startswith("Performance counter stats for"):
            q = s.find("'")
            out["target"] = (
                s[q + 1 : s.rfind("'")] if q >= 0 and s.rfind("'") > q else None
            )
            continue
        if s.startswith("#") and "time" in s and "counts" in s:
            continue  # -I's column header
        words = s.split()
        # 'T seconds time elapsed', or with -r 'T +- SD seconds time elapsed ( +- P% )'
        if len(words) >= 3 and words[1:3] == ["seconds", "time"]:
            out["elapsed_s"] = _num(words[0], mark)
            _check_number(out, n, words[0], out["elapsed_s"])
            continue
        if len(words) >= 5 and words[1] == "+-" and words[3:5] == ["seconds", "time"]:
            out["elapsed_s"] = _num(words[0], mark)
            out["elapsed_stdev_s"] = _num(words[2], mark)
            _check_number(out, n, words[0], out["elapsed_s"])
            if s.count("+-") == 2:
                out["elapsed_variance_pct"] = _variance(s, mark)
            continue
        if len(words) == 3 and words[1] == "seconds" and words[2] in ("user", "sys"):
            out[f"{words[2]}_s"] = _num(words[0], mark)
            _check_number(out, n, words[0], out[f"{words[2]}_s"])
            continue
        if is_elision(s):
            out["warnings"].append(
                f"line {n}: lines left out here ('...'); counters are missing"
            )
            continue
        main, _, metric = s.partition("#")
        tokens = main.split()
        if not tokens:
            continue
        extra: JSON = {}
        tokens = _interval_or_cpu(tokens, mark, extra)
        if not tokens:
            continue
        if tokens[0].startswith("<not"):
            raw = " ".join(tokens[:2])
            rest = tokens[2:]
            value = None
        else:
            raw = tokens[0]
            value = _num(raw, mark)
            rest = tokens[1:]
            if value is None:
                if raw[:1].isdigit() and len(rest) >= 1 and _event_name(rest[-1]):
                    raise ParseError(
                        f"counter value {raw!r} is not a number perf prints"
                        f" (decimal mark {mark!r}); refusing to guess",
                        n,
                    )
                _ignored(out, n, line)
                continue
        unit = ""
        if len(rest) >= 2 and rest[0] in _UNITS:
            unit = rest[0]
            rest = rest[1:]
        # perf before 4.x (CentOS 7's 3.10) put the unit after the event: 'task-clock (msec)'
        if len(rest) >= 2 and rest[1].startswith("(") and rest[1][1:-1] in _UNITS:
            unit = unit or rest[1][1:-1]
            rest = [rest[0], *rest[2:]]
        tail = " ".join(rest[1:])
        # and the share of time counted in brackets: '[83.33%]'
        if tail.startswith("[") and tail.endswith("%]"):
            tail = f"({tail[1:-2]}%)"
        # "VALUE [UNIT] EVENT [(NN.NN%)]" and nothing else: wrk's "56497 requests in 10.04s"
        # or "2 threads and 10 connections" must not become counters.
        if (
            not rest
            or not _event_name(rest[0])
            or (tail and not (tail[0] == "(" and tail.endswith("%)")))
        ):
            _ignored(out, n, line)
            continue
        c = _counter(rest[0], value, unit, raw)
        c.update(extra)
        if tail.startswith("(") and tail.endswith("%)"):
            c["pct_running"] = _num(tail[1:-2].strip(), mark)
        _metric(metric, mark, c)
        last = metric.rstrip()
        if last.endswith("%]") and "[" in last:
            last = last[: last.rfind("[")] + "(" + last[last.rfind("[") + 1 : -1] + ")"
        if last.endswith("%)") and "(" in last and "+-" not in last[last.rfind("(") :]:
            c["pct_running"] = _num(last[last.rfind("(") + 1 : -2].strip(), mark)
        if "+-" in metric:
            c["variance_pct"] = _variance(metric, mark)
        out["counters"].append(c)


def _ignored(out: JSON, n: int, line: str) -> None:
    # a long paste of something else must not grow a warning per line
    warnings: list[str] = out["warnings"]
    if len(warnings) < 100:
        warnings.append(f"line {n}: not a perf stat counter line, ignored: {show(line)}")
    elif len(warnings) == 100:
        warnings.append("more lines ignored; warnings suppressed")


def _variance(text: str, mark: str) -> float | None:
    """'( +-  1,47% )' -> 1.47."""
    v = text.rsplit("+-", 1)[1].split("%")[0].strip()
    return _num(v, mark)


def _check_number(out: JSON, n: int, raw: str, value: float | None) -> None:
    if value is None:
        raise ParseError(f"{raw!r} is not a number perf prints; refusing to guess", n)


def parse(text: str) -> JSON:
    lines = [(n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip()]
    if not lines:
        raise ParseError("no perf stat output: the input is empty", None)
    out: JSON = {
        "format": "text",
        "target": None,
        "counters": [],
        "decimal_mark": ".",
        "elapsed_s": None,
        "elapsed_stdev_s": None,
        "elapsed_variance_pct": None,
        "user_s": None,
        "sys_s": None,
        "warnings": [],
    }
    first = lines[0][1].strip()
    if first.startswith("{"):
        out["format"] = "json"
        _parse_json(lines, out)
    elif sniff_csv([ln for _, ln in lines[:5]]):
        out["format"] = "csv"
        _parse_csv(lines, out)
    else:
        _parse_text(lines, out)
    if not out["counters"]:
        n, line = lines[0]
        raise ParseError(
            f"expected perf stat counters ('267.90 msec task-clock', CSV or JSON), got {show(line)}",
            n,
        )
    return out


def _csv_fields(line: str) -> list[str]:
    """A -x, row without its -I time or -A CPU column, which come first."""
    f = line.split(",")
    if (
        len(f) >= 4
        and (to_float(f[1]) is not None or f[1].startswith("<not"))
        and to_float(f[0].strip()) is not None
        and "." in f[0]
    ):
        f = f[1:]
    if f and f[0].startswith("CPU") and f[0][3:].isdigit():
        f = f[1:]
    return f


def sniff_csv(lines: list[str]) -> bool:
    rows = [_csv_fields(ln) for ln in lines if ln.strip()]
    return bool(rows) and all(
        len(r) >= 5
        and (to_float(r[0]) is not None or r[0].startswith("<not"))
        and r[2] != ""
        for r in rows
    )


def sniff(lines: list[str]) -> float:
    text = [ln.strip() for ln in lines[:60] if ln.strip()]
    if any(ln.startswith("Performance counter stats for") for ln in text):
        return 1.0
    if text and text[0].split() == ["#", "time", "counts", "unit", "events"]:
        return 1.0  # -I
    if (
        text
        and text[0].startswith("{")
        and '"counter-value"' in text[0]
        and '"event"' in text[0]
    ):
        return 1.0
    if sniff_csv(text[:5]) and any(
        _csv_fields(ln)[2]
        in (
            "task-clock",
            "cycles",
            "instructions",
            "context-switches",
            "cpu-clock",
            "page-faults",
        )
        for ln in text
    ):
        return 0.9
    return 0.0
