"""vegeta (tsenart/vegeta) reports: ``vegeta report`` text or ``vegeta report -type=json``, as the
load summary of ``wrk``.

Output schema: wrk's keys (see ``wrk``), with::

    {"tool": "vegeta",
     "test_duration_s": 9.949883921,            # Duration: attack
     "duration_s": 10.094965987,                # Duration: total (attack + wait for the last responses)
     "requests": 1200,
     "requests_per_sec": 120.0,                 # Requests: rate (vegeta sends at a fixed rate)
     "latency_ms": {"avg": 113.172, "stdev": null, "max": 226.282, "within_stdev_pct": null},
     "latency_percentiles_ms": {"50": 108.273, "90": 140.719, "95": 153.046, "99": 191.011},
     "bytes_read": 3714690, "transfer_per_sec_bytes": 367973.6,
     "non_2xx_3xx": 0,                          # responses with a status outside 2xx/3xx
     "socket_errors": {"connect": 535, ...},    # status 0 (no response), by the Error Set's messages
     "status_codes": {"0": 535, "200": 665},
     "details": {"format": "text" | "json", "throughput": 65.87,   # successful responses per second
                 "success_ratio": 0.5542, "latency_min_ms": 90.438, "bytes_out": 0,
                 "errors": ["Get http://localhost:6060: dial tcp 127.0.0.1:6060: connection refused"]},
     "warnings": [...]}

Text durations are Go's (``10.094965987s``, ``145.082066ms``, ``2m55s``); JSON latencies and
durations are nanoseconds. Older vegeta prints fewer fields (``Requests [total, rate]``,
``Latencies [mean, 50, 95, 99, max]``): each value is read by its label, and a label vegeta did not
print stays null. Status 0 means vegeta got no response; it counts once per request under the
socket error class its Error Set names (connection refused -> connect, timeouts -> timeout; several
kinds of message -> read, with a warning, since vegeta does not count them per message).
"""

from __future__ import annotations

from . import _load
from ._common import JSON, ParseError, show, split_lines, to_float, to_int

KIND = "vegeta"

METRICS: dict[str, str] = {"requests_per_sec": "req/s", "latency_percentiles_ms.*": "ms"}

_LABELS = ("Requests", "Duration", "Latencies", "Bytes In", "Bytes Out", "Success", "Status Codes")


def _row(s: str) -> tuple[str, list[str], str] | None:
    """'Latencies     [min, mean, 50, ...]  1.1ms, 2ms, ...' -> ('Latencies', ['min', ...], '1.1ms, 2ms, ...')."""
    open_at = s.find("[")
    close_at = s.find("]", open_at)
    if open_at <= 0 or close_at < 0:
        return None
    name = s[:open_at].strip()
    if name not in _LABELS:
        return None
    labels = [x.strip() for x in s[open_at + 1 : close_at].split(",")]
    return name, labels, s[close_at + 1 :].strip()


def _socket_errors(codes: dict[str, int], errors: list[str], warnings: list[str]) -> dict[str, int]:
    out = {"connect": 0, "read": 0, "write": 0, "timeout": 0}
    no_response = codes.get("0", 0)
    if not no_response:
        return out
    # vegeta also lists a non-2xx status as an error ('502 Bad Gateway'): those had a response
    transport = [e for e in errors if not (e[:3].isdigit() and e[3:4] == " ")]
    kinds = {_load.error_class(e) for e in transport}
    if len(kinds) == 1:
        out[kinds.pop()] += no_response
    else:
        out["read"] += no_response
        if kinds:
            warnings.append(f"{no_response} requests got no response, with {len(kinds)} kinds of error;"
                            " vegeta does not count them per kind: all are counted as read errors")
    return out


def _build(fmt: str, *, requests: int | None, rate: float | None, throughput: float | None,
           attack_s: float | None, total_s: float | None, lat: dict[str, float | None],
           bytes_in: int | None, bytes_out: int | None, success: float | None, codes: dict[str, int],
           errors: list[str], warnings: list[str]) -> JSON:
    pct = {k: lat[k] for k in ("50", "90", "95", "99") if lat.get(k) is not None}
    return _load.summary(
        "vegeta",
        test_duration_s=attack_s,
        duration_s=total_s,
        requests=requests,
        requests_per_sec=rate,
        bytes_read=bytes_in,
        transfer_per_sec_bytes=round(bytes_in / total_s, 2) if bytes_in is not None and total_s else None,
        latency_ms={"avg": lat.get("mean"), "stdev": None, "max": lat.get("max"), "within_stdev_pct": None},
        latency_percentiles_ms=pct,
        non_2xx_3xx=_load.statuses_to_errors(codes),
        socket_errors=_socket_errors(codes, errors, warnings),
        status_codes=codes,
        details={"format": fmt, "throughput": throughput, "success_ratio": success,
                 "latency_min_ms": lat.get("min"), "bytes_out": bytes_out, "errors": errors},
        warnings=warnings,
    )


def _from_json(doc: JSON) -> JSON:
    if "latencies" not in doc or "requests" not in doc:
        raise ParseError("a vegeta JSON report has 'latencies' and 'requests'; this JSON has not", 1)

    def num(v: object) -> float | None:
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None

    lat_ns = doc.get("latencies")
    lat: dict[str, float | None] = {}
    for k, v in (lat_ns.items() if isinstance(lat_ns, dict) else ()):
        ns = num(v)
        lat[k.removesuffix("th")] = _load.ms(ns / 1e9 if ns is not None else None)
    duration, wait = num(doc.get("duration")), num(doc.get("wait"))
    attack_s = duration / 1e9 if duration is not None else None
    total_s = (duration + (wait or 0.0)) / 1e9 if duration is not None else None
    raw_codes = doc.get("status_codes")
    codes = {str(k): int(v) for k, v in (raw_codes.items() if isinstance(raw_codes, dict) else ())
             if isinstance(v, int)}
    errors = [str(e) for e in doc.get("errors") or []]
    bytes_in: dict[str, object] = doc["bytes_in"] if isinstance(doc.get("bytes_in"), dict) else {}
    bytes_out: dict[str, object] = doc["bytes_out"] if isinstance(doc.get("bytes_out"), dict) else {}
    requests = num(doc.get("requests"))
    rate = num(doc.get("rate"))
    return _build("json", requests=int(requests) if requests is not None else None,
                  rate=round(rate, 6) if rate is not None else None, throughput=num(doc.get("throughput")),
                  attack_s=attack_s, total_s=round(total_s, 9) if total_s is not None else None, lat=lat,
                  bytes_in=int(num(bytes_in.get("total")) or 0), bytes_out=int(num(bytes_out.get("total")) or 0),
                  success=num(doc.get("success")), codes=codes, errors=errors, warnings=[])


def parse(text: str) -> JSON:
    doc = _load.json_object(text, "a vegeta JSON report")
    if doc is not None:
        return _from_json(doc)
    rows: dict[str, dict[str, str]] = {}
    codes: dict[str, int] = {}
    errors: list[str] = []
    in_errors = False
    first_other: tuple[int, str] | None = None
    for n, line in enumerate(split_lines(text), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("Error Set:"):
            in_errors = True
            continue
        row = _row(s)
        if row is not None:
            in_errors = False
            name, labels, values = row
            if name == "Status Codes":
                for item in values.split():
                    code, _, count = item.partition(":")
                    c = to_int(count)
                    if c is not None:
                        codes[code] = codes.get(code, 0) + c
            else:
                rows[name] = dict(zip(labels, [v.strip() for v in values.split(",")], strict=False))
            continue
        if in_errors:
            if len(errors) < 100:
                errors.append(s)
            continue
        if first_other is None:
            first_other = (n, line)
    if "Requests" not in rows or "Latencies" not in rows:
        if first_other is None:
            raise ParseError("no vegeta report: the input is empty", None)
        n, line = first_other
        raise ParseError(f"expected a vegeta report ('Requests [total, rate, throughput] ...'), got {show(line)}", n)
    req, dur, lat_text = rows["Requests"], rows.get("Duration", {}), rows["Latencies"]
    lat = {k: _load.ms(_load.go_duration_s(v)) for k, v in lat_text.items()}
    success = rows.get("Success", {}).get("ratio")
    total = to_int(req.get("total", ""))
    return _build(
        "text", requests=total, rate=to_float(req.get("rate", "")), throughput=to_float(req.get("throughput", "")),
        attack_s=_load.go_duration_s(dur.get("attack", "")), total_s=_load.go_duration_s(dur.get("total", "")),
        lat=lat, bytes_in=to_int(rows.get("Bytes In", {}).get("total", "")),
        bytes_out=to_int(rows.get("Bytes Out", {}).get("total", "")),
        success=round(v / 100, 6) if success and (v := to_float(success.rstrip("%"))) is not None else None,
        codes=codes, errors=errors, warnings=[])


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines[:60]:
        s = line.strip()
        text_row = s.startswith(("Requests ", "Latencies ", "Duration ", "Status Codes ")) and "[" in s and "]" in s
        if text_row or s.startswith(('"latencies"', '"status_codes"', '"bytes_in"')):
            score += 0.3
        elif s.startswith("{") and '"latencies"' in s and '"status_codes"' in s:
            score += 0.9  # `vegeta report -type=json` prints one line
    return min(score, 1.0)
