"""``perf stat`` counter summaries: the default text layout, ``-x,`` CSV and ``-j`` JSON.

Output schema::

    {"format": "text" | "csv" | "json",
     "target": "python3 -c sum(range(3000000))" | "system wide" | null,
     "counters": [{"event": "task-clock", "value": 267.9 | null, "unit": "msec" | "",
                   "supported": true,                 # false for <not supported>
                   "counted": true,                   # false for <not counted>
                   "metric_value": 0.502 | null, "metric_unit": "CPUs utilized" | null,
                   "pct_running": 100.0 | null,       # CSV/JSON; text only when multiplexed
                   "variance_pct": 1.23 | null}],     # '( +-  1.23% )' with -r
     "elapsed_s": 0.533609108 | null, "user_s": 0.164985 | null, "sys_s": 0.072993 | null,
     "warnings": [...]}

``value`` is in the counter's own ``unit`` (msec for task-clock, events otherwise). Text output
may group thousands with commas (``1,432`` in en_US); they are removed.
"""

from __future__ import annotations

import json
import math

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float

KIND = "perf-stat"

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


def _number(tok: str) -> float | None:
    return to_float(tok.replace(",", "")) if tok.count(".") <= 1 else None


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
        out["counters"].append(c)


def _parse_csv(lines: list[tuple[int, str]], out: JSON) -> None:
    for n, line in lines:
        f = line.split(",")
        if len(f) < 3:
            out["warnings"].append(
                f"line {n}: not a perf stat -x, row, ignored: {show(line)}"
            )
            continue
        raw, unit, event = f[0], f[1], f[2]
        value = to_float(raw)
        if value is None and not raw.startswith("<"):
            out["warnings"].append(
                f"line {n}: counter value {raw!r} is not a number, ignored"
            )
            continue
        c = _counter(event, value, unit, raw)
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


def _parse_text(lines: list[tuple[int, str]], out: JSON) -> None:
    for n, line in lines:
        s = line.strip()
        if s.startswith("Performance counter stats for"):
            q = s.find("'")
            out["target"] = (
                s[q + 1 : s.rfind("'")] if q >= 0 and s.rfind("'") > q else None
            )
            continue
        words = s.split()
        if len(words) >= 3 and words[1:3] == ["seconds", "time"]:
            out["elapsed_s"] = _number(words[0])
            continue
        if len(words) == 3 and words[1] == "seconds" and words[2] in ("user", "sys"):
            out[f"{words[2]}_s"] = _number(words[0])
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
        if tokens[0].startswith("<not"):
            raw = " ".join(tokens[:2])
            rest = tokens[2:]
            value = None
        else:
            raw = tokens[0]
            value = _number(raw)
            rest = tokens[1:]
            if value is None:
                out["warnings"].append(
                    f"line {n}: not a perf stat line, ignored: {show(line)}"
                )
                continue
        unit = ""
        if len(rest) >= 2 and rest[0] in _UNITS:
            unit = rest[0]
            rest = rest[1:]
        tail = " ".join(rest[1:])
        # "VALUE [UNIT] EVENT [(NN.NN%)]" and nothing else: wrk's "56497 requests in 10.04s"
        # or "2 threads and 10 connections" must not become counters.
        if (
            not rest
            or not _event_name(rest[0])
            or (tail and not (tail[0] == "(" and tail.endswith("%)")))
        ):
            out["warnings"].append(
                f"line {n}: not a perf stat counter line, ignored: {show(line)}"
            )
            continue
        c = _counter(rest[0], value, unit, raw)
        if tail.startswith("(") and tail.endswith("%)"):
            c["pct_running"] = to_float(tail[1:-2].strip())
        m = metric.split("(")[0].split()
        if m and _number(m[0]) is not None:
            c["metric_value"] = _number(m[0])
            c["metric_unit"] = " ".join(m[1:]) or None
        last = metric.rstrip()
        if last.endswith("%)") and "(" in last and "+-" not in last[last.rfind("(") :]:
            c["pct_running"] = to_float(
                last[last.rfind("(") + 1 : -2].strip()
            )  # multiplexed
        if "+-" in metric:
            v = metric.split("+-")[1].split("%")[0].strip()
            c["variance_pct"] = to_float(v)
        out["counters"].append(c)


def parse(text: str) -> JSON:
    lines = [(n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip()]
    if not lines:
        raise ParseError("no perf stat output: the input is empty", None)
    out: JSON = {
        "format": "text",
        "target": None,
        "counters": [],
        "elapsed_s": None,
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


def sniff_csv(lines: list[str]) -> bool:
    rows = [ln.split(",") for ln in lines if ln.strip()]
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
    if (
        text
        and text[0].startswith("{")
        and '"counter-value"' in text[0]
        and '"event"' in text[0]
    ):
        return 1.0
    if sniff_csv(text[:5]) and any(
        ln.split(",")[2]
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
