"""ApacheBench (``ab``, apache2-utils) reports: the load summary of ``wrk``, filled from ab's report.

Output schema: wrk's keys (see ``wrk``), with::

    {"tool": "ab", "url": "http://127.0.0.1:18555/page.html",   # Server Hostname/Port, Document Path
     "threads": 1, "connections": 10,                            # 'Concurrency Level'
     "duration_s": 1.075,                                        # 'Time taken for tests'
     "requests": 5000,                                           # 'Complete requests'
     "requests_per_sec": 4650.78, "bytes_read": 28855000,        # 'Total transferred'
     "transfer_per_sec_bytes": 26839664.64,                      # 'Transfer rate' (Kbytes = 1024)
     "latency_ms": {"avg": 2.0, "stdev": 2.3, "max": 13.0, "within_stdev_pct": null},  # 'Total:' row
     "latency_percentiles_ms": {"50": 1.0, "66": 2.0, ..., "100": 13.0},
     "non_2xx_3xx": 0,                                           # 'Non-2xx responses' (3xx included)
     "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0},
     "details": {"failed_requests": 0, "length_failures": 0, "exceptions": 0, "keep_alive_requests": 2000,
                 "time_per_request_ms": 2.15, "time_per_request_all_ms": 0.215,
                 "connection_times_ms": {"Connect": {"min": 0, "mean": 0, "sd": 0.8, "median": 0, "max": 13}, ...},
                 "document_length_bytes": 5536, "server_software": "nginx/1.22.1"},
     "warnings": [...]}

Times are ab's whole milliseconds (its percentile table and Connection Times). ``Failed requests``
splits into Connect (socket_errors.connect), Receive (read), Length and Exceptions: a Length
failure is a response whose size differs from the first one (dynamic pages), so it is kept in
``details`` with a warning, not counted as an error. ab counts 3xx responses as ``Non-2xx``: they
are in ``non_2xx_3xx`` here as ab printed them. ``-t`` runs stop at 50,000 requests unless ``-n``
says otherwise; the numbers are what ab measured. ``apr_socket_recv: Connection refused`` and other
messages that stopped ab are errors naming the line.
"""

from __future__ import annotations

from . import _load
from ._common import JSON, ParseError, show, split_lines, to_float, to_int

KIND = "ab"

METRICS: dict[str, str] = {"requests_per_sec": "req/s", "latency_percentiles_ms.*": "ms"}


def _first_number(text: str) -> float | None:
    parts = text.split()
    return to_float(parts[0]) if parts else None


def parse(text: str) -> JSON:
    fields: dict[str, str] = {}
    times: dict[str, JSON] = {}
    percentiles: dict[str, float | None] = {}
    failures = {"Connect": 0, "Receive": 0, "Length": 0, "Exceptions": 0}
    warnings: list[str] = []
    per_request: list[float | None] = []
    section = None
    banner = False
    stop: tuple[int, str] | None = None
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("This is ApacheBench"):
            banner = True
            continue
        if s.startswith("Connection Times (ms)"):
            section = "times"
            continue
        if s.startswith("Percentage of the requests served"):
            section = "pct"
            continue
        if section == "times":
            name, _, rest = s.partition(":")
            nums = [to_float(t) for t in rest.split()]
            if len(nums) == 5 and name in ("Connect", "Processing", "Waiting", "Total"):
                times[name] = dict(zip(("min", "mean", "sd", "median", "max"), nums, strict=True))
                continue
        if section == "pct":
            parts = s.split()
            if len(parts) >= 2 and parts[0].endswith("%"):
                p = to_float(parts[0][:-1])
                if p is not None:
                    percentiles[_load.percentile_key(p)] = to_float(parts[1])
                continue
        if s.startswith("(Connect:") and s.endswith(")"):
            # '   (Connect: 0, Receive: 0, Length: 5, Exceptions: 0)' under 'Failed requests'
            for item in s[1:-1].split(","):
                key, _, value = item.partition(":")
                count = to_int(value.strip())
                if key.strip() in failures and count is not None:
                    failures[key.strip()] = count
            continue
        key, sep, value = s.partition(":")
        if sep and key and not key.startswith(("Completed", "Finished", "Benchmarking")):
            if key == "Time per request":
                per_request.append(_first_number(value))
            else:
                fields.setdefault(key, value.strip())
            continue
        if s.startswith(("Completed ", "Finished ", "Benchmarking ", "Copyright", "Licensed")):
            if "..." in s and ":" in s.split("...", 1)[1] and stop is None:
                stop = (n, s.split("...", 1)[1])  # 'Benchmarking 127.0.0.1 (be patient)...apr_socket_recv: ...'
            continue
        if stop is None and (banner or fields) and ("apr_" in s or "error" in s.lower()):
            stop = (n, s)
            continue
        if first_other is None:
            first_other = (n, line)
    if "Complete requests" not in fields:
        if stop is not None:
            raise ParseError(f"ab could not run the test: {stop[1].strip()}", stop[0])
        if first_other is None:
            raise ParseError("no ab output: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected an ab report ('Complete requests: N'), got {show(line)}", n)
    num = {k: _first_number(v) for k, v in fields.items()}
    duration = num.get("Time taken for tests")
    host, port, path = fields.get("Server Hostname"), fields.get("Server Port"), fields.get("Document Path")
    url = None
    if host and path:
        scheme = "https" if fields.get("SSL/TLS Protocol") else "http"
        url = f"{scheme}://{host}{':' + port if port else ''}{path}"
    rate_kb = num.get("Transfer rate")
    total = times.get("Total") or {}
    if failures["Length"]:
        warnings.append(f"{failures['Length']} responses differed in length from the first one (ab's 'Length'"
                        " failures): not counted as errors; a dynamic page does this")
    if stop is not None:
        warnings.append(f"line {stop[0]}: ab reported {show(stop[1])}")
    requests = num.get("Complete requests")
    non2xx = num.get("Non-2xx responses")
    transferred = num.get("Total transferred")
    return _load.summary(
        "ab",
        url=url,
        threads=1,
        connections=int(c) if (c := num.get("Concurrency Level")) is not None else None,
        duration_s=duration,
        requests=int(requests) if requests is not None else None,
        bytes_read=int(transferred) if transferred is not None else None,
        requests_per_sec=num.get("Requests per second"),
        transfer_per_sec_bytes=round(rate_kb * 1024, 2) if rate_kb is not None else None,
        latency_ms={"avg": total.get("mean"), "stdev": total.get("sd"), "max": total.get("max"),
                    "within_stdev_pct": None},
        latency_percentiles_ms=percentiles,
        non_2xx_3xx=int(non2xx or 0),
        socket_errors={"connect": failures["Connect"], "read": failures["Receive"], "write": 0,
                       "timeout": 0} | ({"other": failures["Exceptions"]} if failures["Exceptions"] else {}),
        details={
            "failed_requests": int(num.get("Failed requests") or 0),
            "length_failures": failures["Length"],
            "exceptions": failures["Exceptions"],
            "keep_alive_requests": int(k) if (k := num.get("Keep-Alive requests")) is not None else None,
            "time_per_request_ms": per_request[0] if per_request else None,
            "time_per_request_all_ms": per_request[1] if len(per_request) > 1 else None,
            "connection_times_ms": times,
            "document_length_bytes": num.get("Document Length"),
            "server_software": fields.get("Server Software"),
        },
        warnings=warnings,
    )


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines[:80]:
        s = line.strip()
        if s.startswith("This is ApacheBench"):
            score += 0.6
        elif s.startswith(("Complete requests:", "Requests per second:", "Concurrency Level:",
                           "Time taken for tests:")):
            score += 0.2
    return min(score, 1.0)
