"""The load summary every load generator's parser returns: wrk's document, field for field.

Validity, verdicts, trends, findings and the run headline read a load generator's result through
the keys of wrk's schema (``requests_per_sec``, ``latency_percentiles_ms``, ``non_2xx_3xx``,
``socket_errors``, ``duration_s`` ...). k6, vegeta, hey and ab fill the same keys, with ``tool``
naming the generator; what only one tool prints goes under ``details``. A key the tool does not
print is null, never computed from figures that do not say it.
"""

from __future__ import annotations

import json

from ._common import JSON, ParseError, to_float

#: parser kinds whose result is a load summary (stored as the run's "wrk" summary)
LOAD_KINDS: tuple[str, ...] = ("wrk", "k6", "vegeta", "hey", "ab")

_GO_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}


def go_duration_s(tok: str) -> float | None:
    """A Go ``time.Duration`` as printed (``1m30.5s``, ``145.082066ms``, ``95.5µs``, ``0s``) in seconds.

    One left-to-right pass: a number, then its unit, repeated."""
    tok = tok.strip().rstrip(",")
    if not tok:
        return None
    total = 0.0
    i, n = 0, len(tok)
    seen = False
    while i < n:
        j = i
        while j < n and (tok[j].isdigit() or tok[j] == "."):
            j += 1
        k = j
        while k < n and not (tok[k].isdigit() or tok[k] == "."):
            k += 1
        value = to_float(tok[i:j]) if j > i else None
        unit = _GO_UNITS.get(tok[j:k])
        if value is None or unit is None:
            return None
        total += value * unit
        seen = True
        i = k
    return total if seen else None


def ms(seconds: float | None, digits: int = 3) -> float | None:
    return None if seconds is None else round(seconds * 1000, digits)


def error_class(message: str) -> str:
    """Which of wrk's socket error counters a load generator's error message belongs to."""
    m = message.lower()
    if "timeout" in m or "deadline exceeded" in m or "timed out" in m:
        return "timeout"
    if "refused" in m or "dial " in m or "connect" in m or "no route" in m or "unreachable" in m:
        return "connect"
    if "write" in m or "broken pipe" in m:
        return "write"
    return "read"  # EOF, connection reset, a cut response: what wrk counts as read errors


def summary(tool: str, **fields: object) -> JSON:
    """wrk's document with ``fields`` set (unknown keys go to ``details``)."""
    doc: JSON = {
        "tool": tool,
        "url": None,
        "test_duration_s": None,
        "threads": None,
        "connections": None,
        "duration_s": None,
        "requests": None,
        "bytes_read": None,
        "requests_per_sec": None,
        "transfer_per_sec_bytes": None,
        "latency_ms": {"avg": None, "stdev": None, "max": None, "within_stdev_pct": None},
        "req_per_sec_per_thread": None,
        "latency_percentiles_ms": {},
        "non_2xx_3xx": 0,
        "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0},
        "status_codes": {},
        "script_output": [],
        "details": {},
        "warnings": [],
    }
    for key, value in fields.items():
        if key not in doc:
            raise KeyError(key)
        doc[key] = value
    return doc


def percentile_key(p: float) -> str:
    """50.0 -> "50", 99.9 -> "99.9": wrk's keys."""
    text = f"{p:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def statuses_to_errors(codes: dict[str, int]) -> int:
    """Responses whose status is not 2xx or 3xx (status 0, no response, is not one)."""
    return sum(c for code, c in codes.items() if code[:1] not in ("2", "3", "0") and code != "")


def json_object(text: str, what: str) -> JSON | None:
    """The JSON object ``text`` holds when it starts with '{' (k6's and vegeta's JSON reports), None
    when it is text; invalid JSON, or JSON that is no object, is a ParseError naming ``what``."""
    if text.lstrip()[:1] != "{":
        return None
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ParseError(f"not valid JSON ({e}); {what} was expected", None) from None
    if not isinstance(doc, dict):
        raise ParseError(f"{what} is an object", 1)
    return doc
