"""The streaming line parsers: fed line by line, resumed from saved state, they agree with parse()."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from perflab.parsers import ParseError, line_parser, parse, resume
from perflab.parsers._common import LineParser, split_lines

from .corpus import fixtures, options

STREAMING = [(k, p) for k, p in fixtures() if k in ("vmstat", "pidstat", "netqtop")]
IDS = [f"{p.parent.name}/{p.name}" for _, p in STREAMING]


def _drive(parser: LineParser, lines: list[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for line in lines:
        out.extend(
            parser.feed(line + "\n")
        )  # agents hand over lines with their newline
    return out


def _whole(kind: str, path: Path) -> dict[str, Any] | None:
    try:
        return parse(kind, path.read_text(encoding="utf-8"), **options(path))
    except ParseError:
        return None


@pytest.mark.parametrize(("kind", "path"), STREAMING, ids=IDS)
def test_line_at_a_time_equals_whole_text(kind: str, path: Path) -> None:
    expected = _whole(kind, path)
    assert expected is not None
    parser = line_parser(kind, **options(path))
    records = _drive(parser, split_lines(path.read_text(encoding="utf-8")))
    records.extend(parser.finish())
    assert parser.result(records) == expected


@pytest.mark.parametrize(("kind", "path"), STREAMING, ids=IDS)
def test_resume_from_state_at_every_line_equals_uninterrupted(
    kind: str, path: Path
) -> None:
    expected = _whole(kind, path)
    assert expected is not None
    lines = split_lines(path.read_text(encoding="utf-8"))
    for cut in range(len(lines) + 1):
        first = line_parser(kind, **options(path))
        records = _drive(first, lines[:cut])
        # the server stores the state as JSON and resumes in another process, days later
        saved = json.loads(json.dumps(first.state()))
        second = resume(saved)
        assert type(second) is type(first)
        records.extend(_drive(second, lines[cut:]))
        records.extend(second.finish())
        assert second.result(records) == expected, f"resumed after line {cut}"


def test_vmstat_emits_each_sample_as_its_row_arrives() -> None:
    p = line_parser("vmstat")
    assert (
        p.feed(
            "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
        )
        == []
    )
    assert (
        p.feed(
            " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
        )
        == []
    )
    first = p.feed(
        " 4  0      0 24038756   2384 453352    0    0   905  1168  633 4564 22 11 63  0  4"
    )
    assert len(first) == 1 and first[0]["sy"] == 11 and first[0]["since_boot"] is True
    second = p.feed(
        " 4  0      0 24038756   2384 453352    0    0     0     0 6158 58334 15 80  4  0  1"
    )
    assert second[0]["cs"] == 58334 and second[0]["since_boot"] is False
    assert p.finish() == []


def test_pidstat_averages_become_available_at_the_end() -> None:
    path = next(
        p
        for k, p in STREAMING
        if k == "pidstat" and p.name == "nginx-proxy-buffers_default_run1.txt"
    )
    p = line_parser("pidstat")
    records = _drive(p, split_lines(path.read_text()))
    p.finish()
    assert len(records) == 60  # 10 intervals x 3 workers x (-u, -w)
    by_pid = {a["pid"]: a for a in p.averages}
    assert by_pid[821]["system_pct"] == 44.7 and by_pid[821]["nvcswch_per_s"] == 15122.8


def test_netqtop_emits_an_interval_when_it_is_complete() -> None:
    path = next(p for k, p in STREAMING if p.name == "legacy_default.txt")
    p = line_parser("netqtop")
    emitted = [len(p.feed(line)) for line in split_lines(path.read_text())]
    # one interval per dashed rule, nothing before
    rules = [
        i
        for i, line in enumerate(split_lines(path.read_text()))
        if set(line.strip()) == {"-"}
    ]
    assert [i for i, n in enumerate(emitted) if n] == rules


def test_state_is_plain_json() -> None:
    p = line_parser("netqtop")
    for line in split_lines(
        next(p for k, p in STREAMING if p.name == "legacy_t.txt").read_text()
    )[:9]:
        p.feed(line)
    state = p.state()
    assert json.loads(json.dumps(state)) == state
    p.feed(
        " Total        100          4          6          0          0          0     1000.0       10.0"
    )
    assert state != p.state()  # a snapshot, not a live view


def test_unknown_streaming_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="no line parser"):
        line_parser("wrk")
