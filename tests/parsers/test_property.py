"""Property tests: whatever text comes in, a parser returns a dict or raises ParseError.

Arbitrary text, and real fixtures mutated the way pastes get damaged (lines dropped, duplicated,
cut short, bytes flipped), for every kind. Results must also be strict JSON.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perflab.parsers import (
    KINDS,
    STREAMING_KINDS,
    ParseError,
    detect,
    line_parser,
    parse,
)
from perflab.parsers._common import split_lines

from .corpus import fixtures

TEXTS = [(kind, path.read_text(encoding="utf-8")) for kind, path in fixtures()]
ALL_KINDS = (*KINDS, "auto")

# Characters the tools print, plus some that break naive parsers.
ALPHABET = st.sampled_from(
    list("0123456789 \t\n.,:-%/()[]<>=#|_+")
    + [
        "k",
        "K",
        "M",
        "G",
        "us",
        "ms",
        "s",
        "B",
        "KB",
        "MB",
        "nan",
        "-nan%",
        "...",
        "\r",
        "\x00",
        "\u2028",
        "٣",
        "…",
        "时",
    ]
    + [
        "Average:",
        "Total",
        "TX",
        "RX",
        "QueueID",
        "Command",
        "PID",
        "r",
        "b",
        "swpd",
        "free",
        "us",
        "sy",
        "\x85",
    ]
    + [
        "Running 1s test @ x",
        "requests in",
        "Latency",
        "Req/Sec",
        "% time",
        "syscall",
        "------",
        "total",
    ]
)
# PERFLAB_HYPOTHESIS_EXAMPLES=20000 for a long hunt; the default keeps the suite well under 30 s.
SETTINGS = settings(
    max_examples=int(os.environ.get("PERFLAB_HYPOTHESIS_EXAMPLES", "1000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _check(kind: str, text: str) -> None:
    try:
        result = parse(kind, text)
    except ParseError as e:
        assert isinstance(e.message, str) and e.message
        assert e.line is None or (isinstance(e.line, int) and e.line >= 1)
        assert (
            str(e).startswith(f"line {e.line}: ")
            if e.line is not None
            else str(e) == e.message
        )
        return
    assert isinstance(result, dict)
    assert isinstance(result["warnings"], list)
    json.dumps(result, allow_nan=False)


@SETTINGS
@given(
    kind=st.sampled_from(ALL_KINDS),
    text=st.lists(ALPHABET, max_size=60).map("".join) | st.text(max_size=400),
)
def test_arbitrary_text(kind: str, text: str) -> None:
    _check(kind, text)
    found = detect(text)
    assert found is None or found in KINDS


@st.composite
def damaged(draw: Any) -> tuple[str, str]:
    kind, text = draw(st.sampled_from(TEXTS))
    lines = split_lines(text)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "cut", "flip", "elide", "swap"]))
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, max(len(lines[i]) - 1, 0)))]
            del lines[i + 1 :]
        elif op == "flip" and lines[i]:
            data = bytearray(lines[i].encode())
            j = draw(st.integers(0, len(data) - 1))
            data[j] ^= 1 << draw(st.integers(0, 7))
            lines[i] = data.decode("utf-8", errors="replace")
        elif op == "elide":
            lines[i] = "..."
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    use_kind = draw(st.sampled_from([kind, kind, "auto", *KINDS]))
    return use_kind, "\n".join(lines)


@SETTINGS
@given(case=damaged())
def test_damaged_fixtures(case: tuple[str, str]) -> None:
    kind, text = case
    _check(kind, text)
    found = detect(text)
    assert found is None or found in KINDS


@SETTINGS
@given(case=damaged(), data=st.data())
def test_streaming_survives_damage_and_resume(case: tuple[str, str], data: Any) -> None:
    kind, text = case
    if kind not in STREAMING_KINDS:
        return
    lines = split_lines(text)
    cut = data.draw(st.integers(0, len(lines)))
    p = line_parser(kind)
    records = []
    for line in lines[:cut]:
        records.extend(p.feed(line))
    p = type(p).from_state(json.loads(json.dumps(p.state())))
    for line in lines[cut:]:
        records.extend(p.feed(line))
    try:
        records.extend(p.finish())
    except ParseError:
        return
    json.dumps(p.result(records), allow_nan=False)


@SETTINGS
@given(case=damaged())
def test_strace_fast_grouping_equals_exact_splitting(case: tuple[str, str]) -> None:
    """The regex fast path of the strace parser counts exactly what splitting every line does."""
    from perflab.parsers import strace

    _, text = case
    exact = strace._group_sliced(strace.chunks(text))
    fast = strace.group_lines(strace.chunks(text))
    fast_bytes = strace.group_lines(strace.chunks(text.encode()))

    def lines() -> list[str]:
        return split_lines(text)

    try:
        expected = strace.summarize(*exact, lines)
    except ParseError as e:
        for grouped in (fast, fast_bytes):
            try:
                strace.summarize(*grouped, lines)
            except ParseError as e2:
                assert e2.message == e.message
            else:
                raise AssertionError("fast path accepted what the exact one refused")
        return
    assert strace.summarize(*fast, lines) == expected
    assert strace.summarize(*fast_bytes, lines) == expected
