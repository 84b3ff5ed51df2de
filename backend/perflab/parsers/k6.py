"""k6 (Grafana k6) results: the end-of-test summary as printed, or its JSON (``--summary-export``,
or a ``handleSummary`` ``JSON.stringify(data)``), as the load summary of ``wrk``.

Output schema: wrk's keys (see ``wrk``), with::

    {"tool": "k6", "url": null,
     "connections": 10,                         # vus_max
     "duration_s": 5.0,                         # the last 'running (05.0s)' line; JSON: count / rate
     "requests": 15503, "requests_per_sec": 3093.188738,          # http_reqs
     "latency_ms": {"avg": 3.03, "stdev": null, "max": 39.55, "within_stdev_pct": null},
     "latency_percentiles_ms": {"50": 1.86, "90": 6.88, "95": 9.71},   # med, p(90), p(95), any p(N)
     "bytes_read": 90000000, "transfer_per_sec_bytes": 18000000.0,    # data_received (kB = 1000)
     "non_2xx_3xx": 3062,                       # http_req_failed: failed requests
     "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0},
     "details": {"format": "summary" | "legacy summary" | "summary-export" | "handleSummary",
                 "latency_min_ms": 0.0955, "iterations": 15503, "checks": {"passes": 9179, "fails": 3062},
                 "thresholds_failed": ["http_req_failed: rate<0.01"],
                 "http_req_duration_expected_ms": {...}},   # '{ expected_response:true }'
     "warnings": [...]}

Both summary layouts are read: k6 >= 1.0 (``█ TOTAL RESULTS``, sections) and the legacy one
(``--summary-mode=legacy`` and k6 < 1.0, ``✓ 0 ✗ 18744`` counts). Times are Go durations
(``95.5µs``, ``1m2s``) converted to ms; sizes are k6's SI units (``90 MB`` = 90,000,000 bytes, as
rounded as k6 printed them). k6 counts a request as failed when its status is outside the expected
responses (200-399 unless set) or it got no response at all: the summary does not tell the two
apart, so failed requests are counted in ``non_2xx_3xx``. The JSON export gives every figure at
full precision.
"""

from __future__ import annotations

from . import _load
from ._common import JSON, ParseError, show, split_lines, to_float, to_int

KIND = "k6"

METRICS: dict[str, str] = {"requests_per_sec": "req/s", "latency_percentiles_ms.*": "ms"}

_SI = {"B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def _trend(text: str) -> dict[str, float | None]:
    """'avg=3.03ms min=95.5µs med=1.86ms max=39.55ms p(90)=6.88ms p(95)=9.71ms' -> ms per stat."""
    out: dict[str, float | None] = {}
    for part in text.split():
        key, sep, value = part.partition("=")
        if sep:
            out[key] = _load.ms(_load.go_duration_s(value), 4)
    return out


def _size(parts: list[str]) -> float | None:
    if len(parts) >= 2 and parts[1] in _SI:
        v = to_float(parts[0])
        return None if v is None else round(v * _SI[parts[1]], 2)
    return None


def _percentiles(stats: dict[str, float | None]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, value in stats.items():
        if key == "med":
            out["50"] = value
        elif key.startswith("p(") and key.endswith(")"):
            p = to_float(key[2:-1])
            if p is not None:
                out[_load.percentile_key(p)] = value
    return dict(sorted(out.items(), key=lambda kv: float(kv[0])))


def _from_json(doc: JSON) -> JSON:
    metrics = doc.get("metrics")
    if not isinstance(metrics, dict) or "http_reqs" not in metrics:
        raise ParseError("a k6 JSON summary has a 'metrics' object with http_reqs; this JSON has none", 1)
    handle = any(isinstance(m, dict) and "values" in m for m in metrics.values())

    def values(name: str) -> dict[str, object]:
        m = metrics.get(name)
        if not isinstance(m, dict):
            return {}
        v = m.get("values", m) if handle else m
        return v if isinstance(v, dict) else {}

    def num(d: dict[str, object], key: str) -> float | None:
        v = d.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    dur = values("http_req_duration")
    lat = {k: (round(v, 4) if (v := num(dur, k)) is not None else None)
           for k in dur if isinstance(dur.get(k), int | float)}
    reqs = values("http_reqs")
    count, rate = num(reqs, "count"), num(reqs, "rate")
    failed = values("http_req_failed")
    # A Rate metric's "passes" are its non-zero samples: for http_req_failed, the failed requests.
    fails = num(failed, "passes")
    if fails is None and num(failed, "rate") is not None and count is not None:
        fails = round((num(failed, "rate") or 0.0) * count)
    state = doc.get("state") if isinstance(doc.get("state"), dict) else {}
    run_ms = state.get("testRunDurationMs") if isinstance(state, dict) else None
    duration = (round(float(run_ms) / 1000, 3) if isinstance(run_ms, int | float)
                else round(count / rate, 3) if count and rate else None)
    received = values("data_received")
    vus = values("vus_max")
    checks = values("checks")
    return _load.summary(
        "k6",
        connections=int(num(vus, "value") or num(vus, "max") or 0) or None,
        duration_s=duration,
        requests=int(count) if count is not None else None,
        requests_per_sec=round(rate, 6) if rate is not None else None,
        bytes_read=int(b) if (b := num(received, "count")) is not None else None,
        transfer_per_sec_bytes=round(num(received, "rate") or 0.0, 2) if num(received, "rate") is not None
        else None,
        latency_ms={"avg": lat.get("avg"), "stdev": None, "max": lat.get("max"), "within_stdev_pct": None},
        latency_percentiles_ms=_percentiles(lat),
        non_2xx_3xx=int(fails or 0),
        details={"format": "handleSummary" if handle else "summary-export", "latency_min_ms": lat.get("min"),
                 "iterations": int(num(values("iterations"), "count") or 0),
                 "checks": {"passes": int(num(checks, "passes") or 0), "fails": int(num(checks, "fails") or 0)}
                 if checks else None},
    )


def parse(text: str) -> JSON:
    if not text.strip():
        raise ParseError("no k6 output: the input is empty", None)
    doc = _load.json_object(text, "a k6 JSON summary")
    if doc is not None:
        return _from_json(doc)
    metrics: dict[str, list[str]] = {}
    trends: dict[str, dict[str, float | None]] = {}
    running: float | None = None
    layout = "legacy summary"
    thresholds: list[str] = []
    threshold_metric = None
    in_thresholds = False
    last_trend: str | None = None
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("█"):
            in_thresholds = "THRESHOLDS" in s
            layout = "summary"
            continue
        if s.startswith("running (") and ")" in s:
            running = _load.go_duration_s(s[len("running ("):s.index(")")]) or running
            continue
        if in_thresholds:
            if s.startswith(("✗", "✓")) and "'" in s:
                if s.startswith("✗"):
                    thresholds.append(f"{threshold_metric}: {s.split(chr(39))[1]}")
            elif s and not s.startswith(("✗", "✓")):
                threshold_metric = s.split()[0]
            continue
        dots = s.find("...")
        colon = s.find(":", dots) if dots > 0 else -1
        if dots > 0 and colon > 0:
            name = s[:dots].lstrip("✓✗ ").strip()
            rest = s[colon + 1 :].split()
            if name.startswith("{") and last_trend is not None:
                trends[last_trend + "_expected"] = _trend(" ".join(rest))
                continue
            if s.startswith("✗") and layout == "legacy summary":
                thresholds.append(name)
            metrics[name] = rest
            if rest and "=" in rest[0]:
                trends[name] = _trend(" ".join(rest))
                last_trend = name
            else:
                last_trend = None
            continue
        if first_other is None and not s.startswith(("✓", "✗", "↳", "execution:", "script:", "output:",
                                                     "scenarios:", "*", "default", "/", "\\", "|")):
            first_other = (n, line)
    if "http_reqs" not in metrics:
        if first_other is None:
            raise ParseError("no k6 summary (no http_reqs line): is this k6 output cut before its summary?", None)
        n, line = first_other
        raise ParseError(f"expected k6's end-of-test summary ('http_reqs......: N  R/s'), got {show(line)}", n)
    reqs = metrics["http_reqs"]
    count = to_int(reqs[0]) if reqs else None
    rate = to_float(reqs[1].removesuffix("/s")) if len(reqs) > 1 else None
    fails = _failed(metrics.get("http_req_failed") or [])
    dur = trends.get("http_req_duration") or {}
    received = metrics.get("data_received") or []
    vus = metrics.get("vus_max") or []
    checks = metrics.get("checks") or metrics.get("checks_succeeded")
    warnings: list[str] = []
    if running is None:
        warnings.append("no 'running (...)' progress line: duration_s is null")
    return _load.summary(
        "k6",
        connections=to_int(vus[0]) if vus else None,
        duration_s=running,
        requests=count,
        requests_per_sec=rate,
        bytes_read=int(b) if (b := _size(received)) is not None else None,
        transfer_per_sec_bytes=_size([received[2], received[3].removesuffix("/s")]) if len(received) > 3 else None,
        latency_ms={"avg": dur.get("avg"), "stdev": None, "max": dur.get("max"), "within_stdev_pct": None},
        latency_percentiles_ms=_percentiles(dur),
        non_2xx_3xx=fails or 0,
        details={"format": layout, "latency_min_ms": dur.get("min"),
                 "iterations": to_int((metrics.get("iterations") or ["0"])[0]),
                 "checks": _checks(checks) if checks else None,
                 "thresholds_failed": thresholds,
                 "http_req_duration_expected_ms": trends.get("http_req_duration_expected")},
        warnings=warnings,
    )



def _failed(parts: list[str]) -> int | None:
    """'25.01% 3062 out of 12241' (k6 >= 0.52) or '0.00%  ✓ 0  ✗ 18744' (older: ✓ counts the failed)."""
    if len(parts) >= 4 and parts[2] == "out":
        return to_int(parts[1])
    if len(parts) >= 3 and parts[1] == "✓":
        return to_int(parts[2])
    return None


def _checks(parts: list[str]) -> JSON | None:
    if len(parts) >= 5 and parts[2] == "out":
        passes, total = to_int(parts[1]), to_int(parts[4])
        if passes is not None and total is not None:
            return {"passes": passes, "fails": total - passes}
    if len(parts) >= 5 and parts[1] == "✓" and parts[3] == "✗":
        return {"passes": to_int(parts[2]), "fails": to_int(parts[4])}
    return None


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines[:200]:
        s = line.strip()
        if s.startswith(("http_req_duration", "http_reqs", "✓ http_req", "✗ http_req")) and "..." in s:
            score += 0.4
        elif s.startswith("█ TOTAL RESULTS") or (s.startswith("running (") and " VUs" in s):
            score += 0.3
        elif s.startswith(('"http_req_duration', '"http_reqs"')):
            score += 0.4
        elif s.startswith("{") and '"metrics"' in s and '"http_reqs"' in s:
            score += 0.9  # handleSummary's JSON.stringify(data): one line
    return min(score, 1.0)
