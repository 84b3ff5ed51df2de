"""nginx access logs: request rate per second, status classes, and latency percentiles of the whole
request (``$request_time``) against the upstream's share (``$upstream_response_time``,
``$upstream_connect_time``, ``$upstream_header_time``).

Output schema::

    {"format": "combined+timings" | "log_format main" | ...,
     "requests": 1200, "skipped": 0,                        # lines not matching the format
     "first_time": 1795449166.0, "last_time": 1795449176.0, "duration_s": 10.0,   # epoch seconds
     "rate": {"mean": 120.0, "max": 140, "min": 90},        # requests per second: requests / duration_s;
                                                            # max/min over the whole seconds seen
     "per_second": [{"t": 1795449166, "requests": 118, "errors": 0}, ...],   # first 3600 seconds
     "status": {"2xx": 1190, "3xx": 0, "4xx": 10, "5xx": 0},
     "statuses": {"200": 1190, "404": 10},
     "latency_ms": {"request_time": {"n": 1200, "mean": 5.1, "p50": 4.0, "p90": 9.0, "p99": 20.0, "max": 31.0},
                    "upstream_response_time": {...} | null,
                    "upstream_connect_time": {...} | null, "upstream_header_time": {...} | null},
     "warnings": [...]}

Formats: pass the ``log_format`` directive as ``log_format=...`` or as the first line of the text
(``log_format main '$remote_addr - ... $request_time';``); otherwise the ``combined`` format is
assumed, followed by optional timings as ``key=value`` (``rt=``/``request_time=``, ``urt=``,
``uct=``, ``uht=``, or the full variable names) or as bare numbers (request time, then upstream
response time). Times are seconds in the log and milliseconds here. Several upstream values
(``0.010, 0.002`` after a retry, ``0.010 : 0.002`` after an internal redirect) are added; ``-`` (no
upstream) is left out of the upstream percentiles. Percentiles are nearest-rank over every request
(memory grows with distinct values, which nginx's millisecond resolution bounds).

Several upstreams are read in every form: inside ``key="..."`` values, as bare numbers after the
combined format (``0.052 0.000, 0.053``), and in a ``log_format`` where ``$upstream_addr``,
``$upstream_response_time`` or ``$upstream_status`` are followed by other fields: each
``$upstream_*`` variable takes its comma- or colon-separated list whole, so a ``$body_bytes_sent`` of
61 after it stays 61 bytes and is never read as 61 s. ``duration_s`` is ``last_time - first_time``:
the log's times are whole seconds and its first and last seconds are only partly covered, so
counting both would add a second (a 10 s load from 166.4 to 176.4 logs seconds 166 to 176).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from ._common import JSON, ParseError, is_elision, show, split_lines, to_float

KIND = "nginx-access"

METRICS: dict[str, str] = {
    "rate.*": "requests/s",
    "per_second.*.requests": "requests",
    "latency_ms.*.*": "ms",
    "status.*": "requests",
}

TIMINGS = ("request_time", "upstream_response_time", "upstream_connect_time", "upstream_header_time")
_ALIASES = {
    "rt": "request_time", "request_time": "request_time", "reqtime": "request_time",
    "urt": "upstream_response_time", "upstream_response_time": "upstream_response_time",
    "ups_resp_time": "upstream_response_time", "upstream_time": "upstream_response_time",
    "uct": "upstream_connect_time", "upstream_connect_time": "upstream_connect_time",
    "uht": "upstream_header_time", "upstream_header_time": "upstream_header_time",
}
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
_COMBINED = re.compile(
    r'^(?P<remote_addr>\S+) \S+ (?P<remote_user>\S+) \[(?P<time_local>[^\]]+)\] '
    r'"(?P<request>(?:[^"\\]|\\.)*)" (?P<status>\d{3}) (?P<body_bytes_sent>\d+|-)'
    r'(?: "(?P<http_referer>(?:[^"\\]|\\.)*)" "(?P<http_user_agent>(?:[^"\\]|\\.)*)")?(?P<rest>.*)$'
)
_KV = re.compile(r'(\w+)=("[^"]*"|\S+)')
_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
MAX_SECONDS = 3600
# What a variable can print, so that a field holding several upstreams ("a, b", "a : b") cannot run
# into the next one (a lazy ".*?" would stop at the first space and shift every later field).
_ONE = r"[^\s,]+"
_SEVERAL = rf"{_ONE}(?:(?:, | : ){_ONE})*"
_NUMBER = r"(?:[\d.]+|-)"
_BODIES = {
    "status": r"\d{3}", "time_local": r"[^\]]*", "msec": r"[\d.]+", "request_time": _NUMBER,
    "body_bytes_sent": r"(?:\d+|-)", "bytes_sent": r"(?:\d+|-)", "request_length": r"(?:\d+|-)",
}


def compile_format(directive: str) -> tuple[str, re.Pattern[str]]:
    """(name, regex) of a ``log_format NAME [escape=..] 'part' 'part';`` directive (or just its string)."""
    text = directive.strip().rstrip(";").strip()
    name = "custom"
    if text.startswith("log_format"):
        rest = text[len("log_format") :].strip()
        name, _, rest = rest.partition(" ")
        rest = rest.strip()
        if rest.startswith("escape="):
            rest = rest.partition(" ")[2].strip()
        text = rest
    parts = re.findall(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", text)
    fmt = "".join(a or b for a, b in parts) if parts else text
    if "$" not in fmt:
        raise ParseError(f"the log_format has no $variables: {show(directive)}", None)
    out: list[str] = ["^"]
    pos = 0
    seen: set[str] = set()
    for m in _VAR.finditer(fmt):
        out.append(re.escape(fmt[pos : m.start()]))
        var = m.group(1) or m.group(2)
        if var in seen:
            out.append(".*?")
        else:
            seen.add(var)
            body = _BODIES.get(var) or (_SEVERAL if var.startswith("upstream_") else ".*?")
            out.append(f"(?P<{var}>{body})")
        pos = m.end()
    out.append(re.escape(fmt[pos:]) + "$")
    return f"log_format {name}", re.compile("".join(out))


def _epoch(fields: dict[str, str | None]) -> float | None:
    if fields.get("msec"):
        return to_float(fields["msec"] or "")
    t = fields.get("time_local")
    if t:
        m = re.match(r"(\d\d)/(\w{3})/(\d{4}):(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)", t)
        if m and m.group(2) in _MONTHS:
            sign = 1 if m.group(7) == "+" else -1
            tz = timezone(sign * timedelta(hours=int(m.group(8)), minutes=int(m.group(9))))
            dt = datetime(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)), int(m.group(4)),
                          int(m.group(5)), int(m.group(6)), tzinfo=tz)
            return dt.timestamp()
    t = fields.get("time_iso8601")
    if t:
        try:
            dt = datetime.fromisoformat(t)
        except ValueError:
            return None
        return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp()
    return None


def _seconds(value: str | None) -> float | None:
    """An nginx time field: '0.005', '-', '0.010, 0.002', '0.010 : 0.002' (summed)."""
    if value is None:
        return None
    value = value.strip().strip('"')
    total = 0.0
    seen = False
    for part in re.split(r"[,:]", value):
        f = to_float(part.strip())
        if f is not None:
            total += f
            seen = True
    return round(total, 6) if seen else None


def _bare_values(rest: str) -> list[str]:
    """The space-separated values after the combined format, several upstreams kept together:
    '0.052 0.000, 0.053' -> ['0.052', '0.000, 0.053']; '0.079 0.023 : 0.056' -> ['0.079', '0.023 : 0.056']."""
    values: list[str] = []
    join = False
    for tok in rest.split():
        tok = tok.strip('"')
        if tok == ":":
            join = bool(values)
            continue
        if values and (join or values[-1].endswith(",")):
            values[-1] += (" : " if join else " ") + tok
            join = False
            continue
        values.append(tok)
    return values


def _stats(counts: dict[float, int]) -> JSON | None:
    n = sum(counts.values())
    if n == 0:
        return None
    values = sorted(counts)
    total = sum(v * c for v, c in counts.items())

    def pct(p: float) -> float:
        rank = max(1, -(-int(p * n * 1000) // 100000))  # ceil(p/100 * n) without float drift
        acc = 0
        for v in values:
            acc += counts[v]
            if acc >= rank:
                return round(v * 1000, 3)
        return round(values[-1] * 1000, 3)

    return {"n": n, "mean": round(total / n * 1000, 3), "p50": pct(50), "p90": pct(90), "p99": pct(99),
            "max": round(values[-1] * 1000, 3)}


def parse(text: str, log_format: str | None = None) -> JSON:
    lines = split_lines(text)
    start = 0
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise ParseError("no access log lines: the input is empty", None)
    if log_format is None and lines[first].lstrip().startswith("log_format"):
        log_format = lines[first]
        start = first + 1
        # a log_format spread over several lines ends at the ';'
        while not log_format.rstrip().endswith(";") and start < len(lines):
            log_format += " " + lines[start].strip()
            start += 1
    fmt_name, pattern = compile_format(log_format) if log_format else ("combined+timings", _COMBINED)
    warnings: list[str] = []
    per_second: dict[int, list[int]] = {}
    timings: dict[str, dict[float, int]] = {k: {} for k in TIMINGS}
    statuses: dict[str, int] = {}
    requests = skipped = 0
    first_bad: tuple[int, str] | None = None
    for n in range(start + 1, len(lines) + 1):
        line = lines[n - 1]
        s = line.strip()
        if not s:
            continue
        if is_elision(s):
            warnings.append(f"line {n}: lines left out here ('...'); requests are missing")
            continue
        m = pattern.match(s)
        if m is None:
            skipped += 1
            if first_bad is None:
                first_bad = (n, line)
            if skipped <= 20:
                warnings.append(f"line {n}: does not match {fmt_name}, ignored: {show(line)}")
            continue
        fields: dict[str, str | None] = m.groupdict()
        rest = fields.pop("rest", None)
        if rest:
            kv = _KV.findall(rest)
            if kv:
                for key, value in kv:
                    alias = _ALIASES.get(key)
                    if alias and fields.get(alias) is None:
                        fields[alias] = value
            else:
                bare = [v for v in _bare_values(rest) if v == "-" or _seconds(v) is not None]
                for key, value in zip(("request_time", "upstream_response_time"), bare, strict=False):
                    fields[key] = value
        requests += 1
        status = fields.get("status") or ""
        statuses[status] = statuses.get(status, 0) + 1
        for key in TIMINGS:
            sec = _seconds(fields.get(key))
            if sec is not None:
                timings[key][sec] = timings[key].get(sec, 0) + 1
        t = _epoch(fields)
        if t is not None:
            bucket = per_second.setdefault(int(t), [0, 0])
            bucket[0] += 1
            if not status.startswith(("2", "3")):
                bucket[1] += 1
    if requests == 0:
        if first_bad is None:
            # Only blank lines and elisions ('...') after the format line: nothing to count.
            raise ParseError("no access log lines: only left-out lines ('...') or a log_format line", None)
        n, line = first_bad
        raise ParseError(f"expected nginx access log lines ({fmt_name}), got {show(line)}", n)
    if skipped > 20:
        warnings.append(f"{skipped} lines in all did not match {fmt_name}")
    seconds = sorted(per_second)
    rate = None
    if seconds:
        counts = [per_second[s][0] for s in seconds]
        span = seconds[-1] - seconds[0] + 1
        rate = {"mean": round(requests / max(seconds[-1] - seconds[0], 1), 3), "max": max(counts),
                "min": min(counts) if len(counts) == span else 0}
    if len(seconds) > MAX_SECONDS:
        warnings.append(f"per_second lists the first {MAX_SECONDS} of {len(seconds)} seconds")
    classes = {"2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0}
    for code, c in statuses.items():
        key = f"{code[:1]}xx"
        if key in classes:
            classes[key] += c
    return {
        "format": fmt_name,
        "requests": requests,
        "skipped": skipped,
        "first_time": float(seconds[0]) if seconds else None,
        "last_time": float(seconds[-1]) if seconds else None,
        "duration_s": float(seconds[-1] - seconds[0]) if seconds else None,
        "rate": rate,
        "per_second": [{"t": s, "requests": per_second[s][0], "errors": per_second[s][1]}
                       for s in seconds[:MAX_SECONDS]],
        "status": classes,
        "statuses": dict(sorted(statuses.items())),
        "latency_ms": {k: _stats(v) for k, v in timings.items()},
        "warnings": warnings[:200],
    }


def sniff(lines: list[str]) -> float:
    good = total = 0
    for line in lines[:50]:
        s = line.strip()
        if not s:
            continue
        if s.startswith("log_format"):
            return 0.9
        total += 1
        if _COMBINED.match(s):
            good += 1
    return 0.8 if total and good >= 0.8 * total else 0.0
