"""vmstat's block method (feed_rows, the import's row path) is feed() line by line: same records, same line
numbers, same warnings, same header changes, same state, whatever the block boundaries."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from perflab.parsers._common import ParseError, split_lines
from perflab.parsers.vmstat import VmstatLineParser

from tests.imports import stream_cases

from .corpus import FIXTURES


def _texts() -> list[tuple[str, str]]:
    paths = sorted(p for p in FIXTURES.rglob("*.txt") if "vmstat" in p.name or p.parent.name == "vmstat")
    out = [(p.relative_to(FIXTURES).as_posix(), p.read_text(encoding="utf-8")) for p in paths]
    return out + [("edges", stream_cases._vmstat_edges()), ("duplicate labels", stream_cases._vmstat_duplicate_labels()),
                  ("long", stream_cases._vmstat_long(300))]


def _by_feed(lines: list[str]) -> tuple[VmstatLineParser, list[tuple[int, dict[str, Any]]]]:
    parser = VmstatLineParser()
    return parser, [(i, record) for i, line in enumerate(lines) for record in parser.feed(line)]


def _by_rows(lines: list[str], size: int) -> tuple[VmstatLineParser, list[tuple[int, dict[str, Any]]]]:
    parser = VmstatLineParser()
    out = []
    for start in range(0, len(lines), size):
        for run in parser.feed_rows(lines[start:start + size]):
            assert len(run.at) == len(run.stamps) and len(run.values) == len(run.at) * len(run.columns)
            out += [(start + i, record) for i, record in zip(run.at, run.records(), strict=True)]
    return parser, out


def _same(lines: list[str]) -> None:
    parser, records = _by_feed(lines)
    state = json.dumps(parser.state())
    finished = _finish(parser), parser.warnings
    for size in (1, 2, 5, 64, len(lines) + 1):
        other, got = _by_rows(lines, size)
        # json: an int is no float, True no 1
        assert json.dumps(got) == json.dumps(records), size
        assert json.dumps(other.state()) == state, size
        assert (_finish(other), other.warnings) == finished


def _finish(parser: VmstatLineParser) -> Any:
    try:
        return parser.finish()
    except ParseError as exc:
        return str(exc)


@pytest.mark.parametrize(("name", "text"), _texts(), ids=[name for name, _ in _texts()])
def test_feed_rows_is_feed_on_every_vmstat_text(name: str, text: str) -> None:
    _same(split_lines(text))


def _mutated(lines: list[str], rnd: random.Random) -> list[str]:
    out = list(lines)
    for _ in range(rnd.randint(1, 6)):
        if not out:
            break
        j = rnd.randrange(len(out))
        other = out[rnd.randrange(len(out))]
        op = rnd.randrange(9)
        if op == 0:
            out.insert(j, other)  # a header again, a row out of place
        elif op == 1:
            out[j] = out[j][: rnd.randrange(len(out[j]) + 1)]  # cut off
        elif op == 2:
            out[j] = out[j].replace("0", rnd.choice(["_", "٣", "x", "+0", "-", "00"]), 1)
        elif op == 3:
            del out[j]
        elif op == 4:
            out.insert(j, rnd.choice(["...", "", "  ", "$ vmstat -S M 1", "[snip]", "\t"]))
        elif op == 5:
            out[j] += rnd.choice([" 2026-11-22 02:0x:00", " 2026-11-22", " 12:00:00 UTC", " 1"])
        elif op == 6:
            out[j] = out[j].replace("UTC", rnd.choice(["PST", "+0530", "GMT", ""]))
        elif op == 7:
            out[j] = " ".join(reversed(out[j].split()))
        else:
            out[j] = out[j].replace("2026-11-22", rnd.choice(["2026-13-45", "2026/11/22", "20261122xx"]))
    return out


def test_feed_rows_is_feed_on_damaged_texts() -> None:
    rnd = random.Random(20261127)
    texts = [split_lines(text) for _, text in _texts()]
    for _ in range(600):
        _same(_mutated(rnd.choice(texts), rnd))
