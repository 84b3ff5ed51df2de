"""wrk (wg/wrk 4.x) and wrk2 result summaries.

Output schema (``null`` wherever a truncated paste lacks the line, with a warning)::

    {"tool": "wrk" | "wrk2",
     "url": "http://127.0.0.1:18090/page.html", "test_duration_s": 10.0,   # the 'Running' line
     "threads": 2, "connections": 100,
     "duration_s": 10.04,                  # measured, from 'N requests in 10.04s'
     "requests": 56497, "bytes_read": 7086696038,
     "requests_per_sec": 5627.0, "transfer_per_sec_bytes": 706088796.16,
     "latency_ms": {"avg": 25.61, "stdev": 35.02, "max": 486.52, "within_stdev_pct": 90.2},
     "req_per_sec_per_thread": {"avg": 2830.0, "stdev": 1410.0, "max": 5300.0, "within_stdev_pct": 51.0},
     "latency_percentiles_ms": {"50": 13.52, "75": 26.26, "90": 59.64, "99": 178.57},
     "non_2xx_3xx": 0,                     # 0 when wrk printed no 'Non-2xx or 3xx' line
     "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0},
     "script_output": ["WRK_JSON {...}"],  # lines a Lua done() printed after the summary
     "warnings": [...],
     # wrk2 only:
     "calibration": [{"mean_latency_ms": 10.087, "sampling_interval_ms": 22.0}],
     "percentile_spectrum": [{"latency_ms": 0.921, "percentile": 0.0, "total_count": 1}],
     "hdr_summary": {"mean_ms": 6.602, "stdev_ms": 1.919, "max_ms": 12.496, "total_count": 39500,
                     "buckets": 27, "sub_buckets": 2048},
     # wrk2 -U/--u_latency: the latency measured without correcting for coordinated omission,
     # a separate result with its own percentiles, spectrum and summary (absent without -U)
     "uncorrected_latency_percentiles_ms": {...}, "uncorrected_percentile_spectrum": [...],
     "uncorrected_hdr_summary": {...}}

Units are converted exactly as wrk prints them: us/ms/s/m/h for time, k/M/G/T = 1000 for counts
(Req/Sec), KB/MB/GB/TB = 1024 for bytes. Percentile keys drop trailing zeros ("99.900%" -> "99.9").
``-nan%`` (no responses) becomes null, and so does a ``-nan`` figure in a Latency or Req/Sec line
(the line's other figures are kept). wrk2's calibration line is read with the unit attached
(``10.087ms``) or apart (``9747 usec``, older builds). When no request completed, wrk prints 0.00us latencies that
measure nothing: latency figures are then null, with a warning.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ._common import (
    JSON,
    ParseError,
    dec_to_float,
    is_elision,
    show,
    split_lines,
    to_decimal,
    to_float,
    to_int,
)

KIND = "wrk"

#: metric -> unit, for charts and comparison tables (dotted keys name nested fields)
METRICS: dict[str, str] = {
    "requests_per_sec": "/s",
    "transfer_per_sec_bytes": "bytes/s",
    "requests": "requests",
    "bytes_read": "bytes",
    "duration_s": "s",
    "latency_ms.avg": "ms",
    "latency_ms.stdev": "ms",
    "latency_ms.max": "ms",
    "latency_ms.within_stdev_pct": "%",
    "req_per_sec_per_thread.avg": "/s",
    "req_per_sec_per_thread.stdev": "/s",
    "req_per_sec_per_thread.max": "/s",
    "req_per_sec_per_thread.within_stdev_pct": "%",
    "latency_percentiles_ms.*": "ms",
    "non_2xx_3xx": "responses",
    "socket_errors.*": "errors",
}

_TIME_MS = {
    "us": Decimal("0.001"),
    "ms": Decimal(1),
    "s": Decimal(1000),
    "m": Decimal(60000),
    "h": Decimal(3600000),
}
_TIME_S = {k: v / 1000 for k, v in _TIME_MS.items()}
_COUNT = {
    "": Decimal(1),
    "k": Decimal(1000),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
}
_BYTES = {
    "B": Decimal(1),
    "KB": Decimal(1024),
    "MB": Decimal(1024**2),
    "GB": Decimal(1024**3),
    "TB": Decimal(1024**4),
    "PB": Decimal(1024**5),
}


def _split_unit(tok: str) -> tuple[Decimal, str] | None:
    i = len(tok)
    while i > 0 and not tok[i - 1].isdigit():
        i -= 1
    num = to_decimal(tok[:i])
    if num is None:
        return None
    return num, tok[i:]


def _time(tok: str, table: dict[str, Decimal]) -> float | None:
    split = _split_unit(tok)
    if split is None or split[1] not in table:
        return None
    return dec_to_float(split[0] * table[split[1]])


def time_ms(tok: str) -> float | None:
    return _time(tok, _TIME_MS)


def time_s(tok: str) -> float | None:
    return _time(tok, _TIME_S)


def count(tok: str) -> float | None:
    split = _split_unit(tok)
    if split is None or split[1] not in _COUNT:
        return None
    return dec_to_float(split[0] * _COUNT[split[1]])


def nbytes(tok: str) -> float | None:
    split = _split_unit(tok)
    if split is None or split[1] not in _BYTES:
        return None
    return dec_to_float(split[0] * _BYTES[split[1]])


def _pct(tok: str) -> float | None:
    return to_float(tok[:-1]) if tok.endswith("%") else None


def _pct_key(tok: str) -> str | None:
    """'99.900%' -> '99.9', '50%' -> '50'."""
    body = tok[:-1] if tok.endswith("%") else None
    if body is None or to_float(body) is None:
        return None
    if "." in body:
        body = body.rstrip("0").rstrip(".")
    return body or "0"


def _stats(tokens: list[str], unit: str) -> JSON | None:
    """'Latency 25.61ms 35.02ms 486.52ms 90.20%' -> the four figures."""
    if len(tokens) != 5:
        return None
    conv = time_ms if unit == "time" else count
    figures: list[float | None] = []
    for tok in tokens[1:4]:
        # wrk2 prints -nan for a statistic of a thread that recorded nothing: only that one
        # figure is missing, the others on the line still hold
        if tok.lower().removeprefix("-") in _NANS:
            figures.append(None)
            continue
        value = conv(tok)
        if value is None:
            return None
        figures.append(value)
    within: float | None
    if tokens[4].lower().removeprefix("-") in _NANS:
        within = None
    else:
        within = _pct(tokens[4])
        if within is None:
            return None
    avg, stdev, mx = figures
    return {"avg": avg, "stdev": stdev, "max": mx, "within_stdev_pct": within}


_NANS = frozenset({"nan", "nan%", "nanus", "nanms", "nans"})


def parse(text: str) -> JSON:
    out: dict[str, Any] = {
        "tool": "wrk",
        "url": None,
        "test_duration_s": None,
        "threads": None,
        "connections": None,
        "duration_s": None,
        "requests": None,
        "bytes_read": None,
        "requests_per_sec": None,
        "transfer_per_sec_bytes": None,
        "latency_ms": None,
        "req_per_sec_per_thread": None,
        "latency_percentiles_ms": None,
        "non_2xx_3xx": 0,
        "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0},
        "script_output": [],
        "warnings": [],
    }
    warnings: list[str] = out["warnings"]
    seen = 0
    dist: dict[str, float] | None = None
    dist_key = "latency_percentiles_ms"
    in_spectrum = False
    spectra: dict[str, list[JSON]] = {}
    block = ""
    after_summary = False
    first_other: tuple[int, str] | None = None
    latency_seen = False

    for n, line in enumerate(split_lines(text), 1):
        stripped = line.strip()
        if not stripped:
            continue
        tokens = stripped.split()
        head = tokens[0]
        if (
            head == "Running"
            and len(tokens) >= 5
            and tokens[2] == "test"
            and tokens[3] == "@"
        ):
            out["test_duration_s"] = time_s(tokens[1])
            out["url"] = tokens[4]
            seen += 1
            continue
        if (
            len(tokens) == 5
            and tokens[1] == "threads"
            and tokens[2] == "and"
            and tokens[4] == "connections"
        ):
            out["threads"], out["connections"] = to_int(tokens[0]), to_int(tokens[3])
            seen += 1
            continue
        if head == "Thread" and len(tokens) > 1 and tokens[1] == "Stats":
            seen += 1
            continue
        if head == "Thread" and len(tokens) > 1 and tokens[1] == "calibration:":
            out["tool"] = "wrk2"
            out.setdefault("calibration", []).append(_calibration(stripped, n, warnings))
            continue
        if head == "Latency" and len(tokens) == 5:
            stats = _stats(tokens, "time")
            if stats is None:
                warnings.append(f"line {n}: unreadable latency statistics {show(line)}")
            out["latency_ms"] = stats
            latency_seen = True
            seen += 1
            continue
        if head == "Req/Sec" and len(tokens) == 5:
            stats = _stats(tokens, "count")
            if stats is None:
                warnings.append(f"line {n}: unreadable Req/Sec statistics {show(line)}")
            out["req_per_sec_per_thread"] = stats
            seen += 1
            continue
        if head == "Latency" and len(tokens) >= 2 and tokens[1] == "Distribution":
            # wrk2 -U prints a second block (percentiles, spectrum, summary) for the latency
            # measured without correcting for coordinated omission: kept apart, never merged
            if "Uncorrected" in stripped:
                dist_key = "uncorrected_latency_percentiles_ms"
                block = "uncorrected_"
            else:
                dist_key = "latency_percentiles_ms"
                block = ""
            if "HdrHistogram" in stripped:
                out["tool"] = "wrk2"
            dist = {}
            out[dist_key] = dist
            seen += 1
            continue
        if dist is not None and len(tokens) == 2 and head.endswith("%"):
            key, value = _pct_key(head), time_ms(tokens[1])
            if key is None or value is None:
                warnings.append(f"line {n}: unreadable percentile {show(line)}")
            else:
                dist[key] = value
            continue
        if head == "Detailed" and "spectrum:" in tokens:
            in_spectrum = True
            dist = None
            continue
        if in_spectrum:
            if head == "Value":
                continue
            if head.startswith(("#[", "[")):
                _hdr_summary(out.setdefault(f"{block}hdr_summary", {}), stripped)
                continue
            if set(stripped) == {"-"}:
                in_spectrum = False
                continue
            if len(tokens) == 4:
                value, pct, total = (
                    to_float(tokens[0]),
                    to_float(tokens[1]),
                    to_int(tokens[2]),
                )
                if value is not None and pct is not None and total is not None:
                    spectra.setdefault(block, []).append(
                        {"latency_ms": value, "percentile": pct, "total_count": total}
                    )
                    continue
            warnings.append(
                f"line {n}: unreadable percentile spectrum row {show(line)}"
            )
            continue
        if (
            len(tokens) >= 6
            and tokens[1] == "requests"
            and tokens[2] == "in"
            and tokens[-1] == "read"
        ):
            dist = None
            out["requests"] = to_int(tokens[0])
            out["duration_s"] = time_s(tokens[3].rstrip(","))
            b = nbytes(tokens[4])
            out["bytes_read"] = round(b) if b is not None else None
            if out["requests"] is None or out["duration_s"] is None or b is None:
                warnings.append(f"line {n}: unreadable totals {show(line)}")
            seen += 1
            continue
        if stripped.startswith("Non-2xx or 3xx responses:"):
            value = to_int(tokens[-1])
            if value is None:
                warnings.append(f"line {n}: unreadable count {show(line)}")
            out["non_2xx_3xx"] = value
            continue
        if stripped.startswith("Socket errors:"):
            _socket_errors(out, stripped, n, warnings)
            continue
        if head == "Requests/sec:" and len(tokens) == 2:
            out["requests_per_sec"] = to_float(tokens[1])
            seen += 1
            continue
        if head == "Transfer/sec:" and len(tokens) == 2:
            out["transfer_per_sec_bytes"] = nbytes(tokens[1])
            seen += 1
            after_summary = True
            continue
        if stripped.startswith(("unable to connect to", "unable to resolve")):
            raise ParseError(f"wrk could not run the test: {stripped}", n)
        if is_elision(stripped):
            warnings.append(
                f"line {n}: lines left out here ('...'); figures may be missing"
            )
            continue
        if after_summary:
            out["script_output"].append(line.rstrip())
            continue
        if first_other is None:
            first_other = (n, line)
        warnings.append(f"line {n}: not a wrk line, ignored: {show(line)}")

    if seen == 0:
        if first_other is None:
            raise ParseError("no wrk output: the input is empty", None)
        n, line = first_other
        raise ParseError(
            f"expected wrk output ('Running ... test @ URL', 'Requests/sec: ...'), got {show(line)}",
            n,
        )
    for prefix, rows in spectra.items():
        out[f"{prefix}percentile_spectrum"] = rows
    for key in ("latency_percentiles_ms", "uncorrected_latency_percentiles_ms"):
        if out.get(key) == {}:
            out[key] = None  # a 'Latency Distribution' title whose rows were cut off
    _check_missing(out, warnings, latency_seen)
    return out


def _calibration(line: str, n: int, warnings: list[str]) -> JSON:
    """'Thread calibration: mean lat.: 10.087ms, rate sampling interval: 22ms', or as older
    wrk2 builds print it, 'mean lat.: 9747 usec, rate sampling interval: 21 msec'."""
    figures: list[float | None] = []
    for part in line.split(":", 2)[-1].split(","):
        words = part.replace(":", " ").split()
        # the figure is the last word, or the last two when the unit stands apart
        value = None
        if words:
            unit = {"usec": "us", "msec": "ms", "sec": "s"}.get(words[-1])
            if unit is not None and len(words) >= 2:
                value = time_ms(words[-2] + unit)
            else:
                value = time_ms(words[-1])
        figures.append(value)
    if len(figures) != 2 or None in figures:
        warnings.append(f"line {n}: unreadable calibration {show(line)}")
        figures = (figures + [None, None])[:2]
    return {"mean_latency_ms": figures[0], "sampling_interval_ms": figures[1]}


def _hdr_summary(summary: JSON, line: str) -> None:
    # "#[Mean    =        6.602, StdDeviation   =        1.919]"
    names = {
        "Mean": "mean_ms",
        "StdDeviation": "stdev_ms",
        "Max": "max_ms",
        "Total count": "total_count",
        "Buckets": "buckets",
        "SubBuckets": "sub_buckets",
    }
    for part in line.strip("#[]").split(","):
        if "=" not in part:
            continue
        name, _, value = part.partition("=")
        key = names.get(" ".join(name.split()))
        if key is None:
            continue
        number: float | int | None = (
            to_float(value.strip()) if key.endswith("_ms") else to_int(value.strip())
        )
        summary[key] = number


def _socket_errors(out: JSON, line: str, n: int, warnings: list[str]) -> None:
    # "Socket errors: connect 0, read 0, write 0, timeout 13"
    errors = out["socket_errors"]
    for part in line.split(":", 1)[1].split(","):
        words = part.split()
        if len(words) == 2 and words[0] in errors and to_int(words[1]) is not None:
            errors[words[0]] = to_int(words[1])
        else:
            warnings.append(f"line {n}: unreadable socket error count {part.strip()!r}")


def _check_missing(out: JSON, warnings: list[str], latency_seen: bool) -> None:
    lines = {
        "threads": "'N threads and M connections'",
        "requests": "'N requests in T, B read'",
        "requests_per_sec": "'Requests/sec:'",
        "transfer_per_sec_bytes": "'Transfer/sec:'",
        "latency_ms": "'Latency' statistics",
        "req_per_sec_per_thread": "'Req/Sec' statistics",
    }
    for key, what in lines.items():
        if out[key] is None and not (key == "latency_ms" and latency_seen):
            warnings.append(f"no {what} line (truncated paste?): {key} is null")
    if out["requests"] == 0:
        out["latency_ms"] = None
        out["latency_percentiles_ms"] = None
        warnings.append(
            "0 requests completed: wrk's latency figures measure nothing and are null"
        )
    elif out["latency_percentiles_ms"] is not None:
        have = out["latency_percentiles_ms"]
        if out["tool"] == "wrk" and not {"50", "75", "90", "99"} <= set(have):
            warnings.append("latency distribution incomplete (truncated paste?)")


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines[:80]:
        s = line.strip()
        if s.startswith("Running ") and " test @ " in s:
            score += 0.6
        elif s.startswith(("Requests/sec:", "Transfer/sec:", "Thread Stats")) or (
            s.endswith(" connections") and " threads and " in s
        ):
            score += 0.3
        elif s.startswith("unable to connect to ") and len(lines) <= 3:
            score += 0.6
    return min(score, 1.0)
