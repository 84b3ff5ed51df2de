"""hey (rakyll/hey) summaries: the load summary of ``wrk``, filled from hey's report.

Output schema: wrk's keys (see ``wrk``), with::

    {"tool": "hey", "url": null, "connections": null,     # hey does not print them
     "duration_s": 5.0014,                                 # 'Total: 5.0014 secs'
     "requests": 39029,                                    # responses (the status code counts)
     "requests_per_sec": 7803.654,
     "latency_ms": {"avg": 1.3, "stdev": null, "max": 24.9, "within_stdev_pct": null},
     "latency_percentiles_ms": {"10": 0.2, "25": 0.5, "50": 1.0, ..., "99": 6.7},
     "bytes_read": 216064544,                              # 'Total data' (bodies)
     "non_2xx_3xx": 0, "status_codes": {"200": 39029},
     "socket_errors": {"connect": 200, "read": 0, "write": 0, "timeout": 0},   # 'Error distribution'
     "details": {"fastest_ms": 0.1, "size_per_request_bytes": 5536,
                 "phases_ms": {"DNS+dialup": {"avg": 0.0, "fastest": 0.1, "slowest": 24.9}, ...},
                 "errors": [{"count": 200, "message": "Get ...: connection refused"}]},
     "warnings": [...]}

hey prints seconds with four decimals, so latencies carry 0.1 ms resolution. Its ``Requests/sec``
counts failed requests too: when the Error distribution is not empty, ``requests_per_sec`` is the
responses per second (responses / Total) and a warning says so. ``NaN`` (no response) is null.
"""

from __future__ import annotations

from . import _load
from ._common import JSON, ParseError, show, split_lines, to_float, to_int

KIND = "hey"

METRICS: dict[str, str] = {"requests_per_sec": "req/s", "latency_percentiles_ms.*": "ms"}

_SUMMARY_KEYS = {"Total:": "total", "Slowest:": "slowest", "Fastest:": "fastest", "Average:": "average",
                 "Requests/sec:": "rps", "Total data:": "data", "Size/request:": "size"}


def _secs(text: str) -> float | None:
    tok = text.split()[0] if text.split() else ""
    return to_float(tok)


def parse(text: str) -> JSON:
    section = None
    values: dict[str, float | None] = {}
    percentiles: dict[str, float | None] = {}
    codes: dict[str, int] = {}
    errors: list[JSON] = []
    phases: dict[str, JSON] = {}
    warnings: list[str] = []
    seen_summary = False
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s:
            continue
        if s in ("Summary:", "Response time histogram:", "Latency distribution:", "Status code distribution:",
                 "Error distribution:") or s.startswith("Details (average"):
            section = s.split(" (")[0].rstrip(":")
            seen_summary = seen_summary or section == "Summary"
            continue
        if section == "Summary":
            for label, key in _SUMMARY_KEYS.items():
                if s.startswith(label):
                    values[key] = _secs(s[len(label):])
                    break
        elif section == "Latency distribution":
            # '  10% in 0.0002 secs'
            parts = s.split()
            if len(parts) >= 3 and parts[0].endswith("%") and parts[1] == "in":
                p = to_float(parts[0][:-1])
                if p is not None:
                    percentiles[_load.percentile_key(p)] = _load.ms(to_float(parts[2]), 1)
        elif section == "Status code distribution":
            # '  [200]\t39029 responses'
            if s.startswith("[") and "]" in s:
                code, _, rest = s[1:].partition("]")
                count = to_int(rest.split()[0]) if rest.split() else None
                if count is not None:
                    codes[code] = codes.get(code, 0) + count
        elif section == "Error distribution":
            # '  [200]\tGet "http://...": dial tcp ...: connect: connection refused' (count first)
            if s.startswith("[") and "]" in s:
                count_text, _, message = s[1:].partition("]")
                count = to_int(count_text)
                if count is not None:
                    errors.append({"count": count, "message": message.strip()})
        elif section == "Details":
            name, _, rest = s.partition(":")
            figures = [_load.ms(to_float(t.strip().split()[0]) if t.strip() else None, 1) for t in rest.split(",")]
            if len(figures) == 3:
                phases[name.strip()] = {"avg": figures[0], "fastest": figures[1], "slowest": figures[2]}
        elif section is None and first_other is None:
            first_other = (n, line)
    if not seen_summary or values.get("total") is None:
        if first_other is None:
            raise ParseError("no hey output: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected hey's report ('Summary:' then 'Total: N secs'), got {show(line)}", n)
    total = values["total"]
    responses = sum(codes.values())
    socket_errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0}
    for e in errors:
        socket_errors[_load.error_class(e["message"])] += e["count"]
    rps = values.get("rps")
    if errors and total:
        rps = round(responses / total, 3)
        warnings.append(f"hey's Requests/sec counts {sum(e['count'] for e in errors)} failed requests too:"
                        " requests_per_sec is responses per second")
    data = values.get("data")
    if not responses:
        # hey prints 0.0000 and NaN latencies when nothing answered: they measure nothing
        values["slowest"] = values["fastest"] = values["average"] = None
        warnings.append("no response was received: latency figures are null")
    return _load.summary(
        "hey",
        duration_s=total,
        requests=responses,
        bytes_read=int(data) if data is not None else None,
        requests_per_sec=rps,
        transfer_per_sec_bytes=round(data / total, 2) if data is not None and total else None,
        latency_ms={"avg": _load.ms(values.get("average"), 1), "stdev": None,
                    "max": _load.ms(values.get("slowest"), 1), "within_stdev_pct": None},
        latency_percentiles_ms=percentiles,
        non_2xx_3xx=_load.statuses_to_errors(codes),
        socket_errors=socket_errors,
        status_codes=codes,
        details={"fastest_ms": _load.ms(values.get("fastest"), 1),
                 "size_per_request_bytes": values.get("size"), "phases_ms": phases, "errors": errors},
        warnings=warnings,
    )


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines[:60]:
        s = line.strip()
        if s == "Summary:":
            score += 0.3
        elif (s.startswith("Requests/sec:") and "\t" in line) or s in (
                "Response time histogram:", "Latency distribution:", "Status code distribution:"):
            score += 0.2
    return min(score, 1.0)
