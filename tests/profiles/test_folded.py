"""Folded stacks: what flamegraph.pl accepts is accepted, a bad line is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from perflab.parsers.profiles import (
    ProfileError,
    function_table,
    load_profile,
    to_folded,
    tree,
)

from .conftest import FIXTURES, read

XSS = "<img src=x onerror=alert(1)>"
JS = "\"><svg onload=alert(1)>"  # ";" separates frames in folded text, so not ';alert(1);//' 


def test_captured_folded_file_round_trips(experiment: Path) -> None:
    data = read(experiment / "stacks.folded")
    profile = load_profile(data, unit="nanoseconds")

    assert profile.format == "folded"
    assert profile.unit == "nanoseconds"
    assert to_folded(profile) == data


def test_periods_are_recognised_as_a_hint(experiment: Path) -> None:
    # The file does not say its unit; counts that all share a cpu-clock period say it for it.
    profile = load_profile(read(experiment / "stacks.folded"))

    assert profile.unit == "samples"
    assert any("multiple of 2004008" in w and "unit=nanoseconds" in w for w in profile.warnings)


def test_trailing_spaces_crlf_and_repeated_stacks() -> None:
    data = b"main;work 3  \r\nmain;work 4\r\n\r\nmain 1\t\r\n"

    profile = load_profile(data)

    assert profile.stacks == {"main;work": 7, "main": 1}
    assert profile.total == 8
    assert profile.warnings == []


@pytest.mark.parametrize(
    ("data", "line", "problem"),
    [
        (b"main;a 1\nmain;b\nmain;c 2\n", 2, "no count at the end"),
        (b"main;a 1\n\n 5\n", 3, "has no stack before it"),
        (b"main;a 1.5\n", 1, "not a whole number"),
        (b"main;a 1\nmain;b -3\n", 2, "no count at the end"),
        (b"main;a 1\nmain;b 1" + b"0" * 30 + b"\n", 2, "too large"),
    ],
)
def test_bad_lines_are_errors_naming_the_line(data: bytes, line: int, problem: str) -> None:
    with pytest.raises(ProfileError) as err:
        load_profile(data)

    assert err.value.line == line
    assert problem in str(err.value)
    assert str(err.value).startswith(f"line {line}: ")


def test_difffolded_output_is_read_like_flamegraph_pl() -> None:
    # "stack before after": flamegraph.pl draws the second count.
    profile = load_profile(b"main;a 10 30\nmain;b 5 0\n")

    assert profile.stacks == {"main;a": 30, "main;b": 0}
    assert any("two counts" in w for w in profile.warnings)


def test_frame_names_are_kept_as_text_everywhere() -> None:
    data = f"app;{XSS};{JS} 5\napp;{XSS} 2\n".encode()

    profile = load_profile(data)
    t = tree(profile)
    table = {row.name: row for row in function_table(profile)}

    assert f"app;{XSS};{JS}" in profile.stacks
    assert XSS in t["names"] and JS in t["names"]
    assert table[XSS].total == 7 and table[JS].self == 5
    assert to_folded(profile).decode() == f"app;{XSS} 2\napp;{XSS};{JS} 5\n"
    # JSON keeps them as the same characters (the UI renders them as text).
    assert json.loads(json.dumps(t))["names"] == t["names"]


def test_not_utf8_is_shown_with_replacement_characters() -> None:
    profile = load_profile(b"main;caf\xe9 3\n")

    assert profile.stacks == {"main;caf\ufffd": 3}
    assert profile.warnings == ["line 1: bytes that are not UTF-8, shown as \ufffd"]


def test_frames_with_blanks_survive_a_folded_import() -> None:
    # Real stackcollapse-perf.pl output (FlameGraph's perf-vertx-stacks-01, see the fixtures
    # README): one Java frame is a single space, so its line ends ";  3". The count is what
    # follows the last blank, as flamegraph.pl reads it; the blanks before it are the frame.
    expected = (FIXTURES / "stackcollapse-perf" / "perf-vertx-stacks-01.folded").read_bytes()
    odd = next(ln for ln in expected.decode().splitlines() if ln.endswith(";  3"))

    profile = load_profile(expected)

    assert to_folded(profile) == expected
    assert profile.stacks[odd[:-2]] == 3 and odd[:-2].endswith("; ")
    spaced = load_profile(b"java;operator new;Foo::bar(int, char) const 7\nmain\tprog;a b\t2\n")
    assert spaced.stacks == {"java;operator new;Foo::bar(int, char) const": 7, "main\tprog;a b": 2}
