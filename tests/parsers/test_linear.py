"""Every parser runs in time linear in its input, whatever the input is (issue 9: a 512 KB line of
``("(" + "a"*31) * N`` took the strace parser 4.6 s, quadratically more for longer lines, and
froze the import preview).

Each kind (and ``auto``, and ``detect``) gets adversarial text: one 10 MB line of one character,
long lines of brackets, '=' and ':' separators, digits, dashes, other tools' headers repeated,
NUL bytes and invalid UTF-8 (through ``read_text``, as the CLI and uploads read files). The bound
is generous (2 s per MB, best of two tries); on a machine so loaded that a parser misses it, the
parser must at least scale about linearly (four times the input in less than eleven times the
time), which a quadratic one (sixteen times) does not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from perflab.parsers import KINDS, ParseError, detect, parse, read_text

from .corpus import FIXTURES, KIND_OF_DIR

MB = 1 << 20
SECONDS_PER_MB = 2.0
SLACK_S = 0.2


def _rep(unit: str, size: int) -> str:
    return unit * (size // len(unit))


SIZE = MB // 4
SHAPES: dict[str, Callable[[int], str]] = {
    "10 MB line of one character": lambda size: "a" * (40 * size),
    "strace ReDoS: ('(' + 'a'*31) * N": lambda size: _rep("(" + "a" * 31, 2 * size),
    "brackets": lambda size: _rep("([{<>}])", size),
    "' = ' separators": lambda size: _rep("a = (", size),
    "': ' separators": lambda size: _rep("a: ", size),
    "digits and spaces": lambda size: _rep("1 ", size),
    "percent signs": lambda size: _rep("9.5% ", size),
    "dashes": lambda size: "-" * size,
    "commas": lambda size: _rep("1,2,", size),
    "strace -c headers": lambda size: _rep(
        "% time     seconds  usecs/call     calls    errors syscall\n", size
    ),
    "vmstat header and rows": lambda size: _rep(
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
        " 1  0      0 100000   2000  30000    0    0     0     0  100  200  1  1 98  0  0\n",
        size,
    ),
    "pidstat headers": lambda size: _rep(
        "12:00:01 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n",
        size,
    ),
    "netstat -s section of one statistic repeated": lambda size: "Tcp:\n"
    + _rep("    12345 active connection openings\n", size),
    "sysctl continuation lines": lambda size: _rep("dev.cdrom.info = a\n\tb\n", size),
    "sysctl value of many lines": lambda size: "kern.geom.conftxt: 0\n"
    + _rep("1 PART ada0p1 524288 512 i 1\n", size),
    "wrk2 spectrum rows": lambda size: " Detailed Percentile spectrum:\n"
    + _rep("       1.000     0.100000           10         1.11\n", size),
}


def _timed(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        try:
            run()
        except ParseError:
            pass
        best = min(best, time.perf_counter() - start)
        if best < 0.05:
            break
    return best


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("kind", [*KINDS, "auto", "detect"])
def test_linear_time_on_adversarial_text(kind: str, shape: str) -> None:
    def run(size: int) -> tuple[float, float]:
        text = SHAPES[shape](size)
        if kind == "detect":
            return _timed(lambda: detect(text)), len(text) / MB
        return _timed(lambda: parse(kind, text)), len(text) / MB

    elapsed, mb = run(SIZE)
    if elapsed < SECONDS_PER_MB * mb + SLACK_S:
        return
    # Over the bound: a loaded machine, or a superlinear parser? A quarter of the input takes
    # a quarter of the time when linear, a sixteenth when quadratic.
    quarter, _ = run(SIZE // 4)
    if elapsed >= 11 * max(quarter, 0.01):
        # once more, both sizes: a burst of load on a shared machine must not decide it
        elapsed = min(elapsed, run(SIZE)[0])
        quarter = max(quarter, run(SIZE // 4)[0])
    assert elapsed < 11 * max(quarter, 0.01), (
        f"{kind} took {elapsed:.2f} s on {mb:.2f} MB of {shape}, {quarter:.2f} s on a quarter"
    )


# Each kind's own lines, made adversarial: the shapes above are generic, and a regex that only
# runs after a kind's header (tsar's "-+name-+" after "Time", issue 21: a 16 KB paste froze every
# request for 7 s) never sees them. The kinds come from the registry and each must have a
# fixture, so a new kind cannot be left out.
OWN_SIZE = MB // 32
OWN_SHAPES: dict[str, Callable[[str, int], str]] = {
    "its line then a run of dashes": lambda line, size: line + " " + "-" * size + "\n" + line + "\n",
    "its line then dashes and a word": lambda line, size: line + " " + _rep("-" * 64 + "a", size) + "\n",
    "its line with every blank widened": lambda line, size: " ".join(
        line.split(" ")[:1] + [" " * (size // max(1, line.count(" ")))] * line.count(" ")
    ) + "\n" + line + "\n",
    "its line as many columns": lambda line, size: line + _rep(" " + line.split(" ")[-1], size) + "\n",
    "its line repeated": lambda line, size: _rep(line + "\n", size),
}


def _own_lines(kind: str) -> list[str]:
    """The first distinct lines of the kind's first fixture: headers, then the first rows."""
    dirs = [d for d, k in KIND_OF_DIR.items() if k == kind]
    paths = sorted(p for d in dirs for p in (FIXTURES / d).glob("*.txt"))
    assert paths, f"kind {kind!r} has no fixture in tests/fixtures: add one (corpus.KIND_OF_DIR)"
    lines: list[str] = []
    for line in paths[0].read_text(errors="replace").splitlines():
        if line.strip() and line not in lines:
            lines.append(line)
        if len(lines) == 4:
            break
    return lines


@pytest.mark.parametrize("shape", list(OWN_SHAPES))
@pytest.mark.parametrize("kind", KINDS)
def test_linear_time_on_each_kinds_own_lines(kind: str, shape: str) -> None:
    lines = _own_lines(kind)
    for i, line in enumerate(lines):
        # The lines before it too: a kind's row regexes run only under its header.
        prefix = "".join(f"{ln}\n" for ln in lines[:i])

        def run(size: int, line: str = line, prefix: str = prefix) -> tuple[float, float]:
            text = prefix + OWN_SHAPES[shape](line, size)
            slowest = max(
                _timed(lambda: parse(kind, text)), _timed(lambda: parse("auto", text)), _timed(lambda: detect(text))
            )
            return slowest, len(text) / MB

        elapsed, mb = run(OWN_SIZE)
        if elapsed < SECONDS_PER_MB * mb + SLACK_S:
            continue
        quarter, _ = run(OWN_SIZE // 4)
        if elapsed >= 11 * max(quarter, 0.01):
            elapsed = min(elapsed, run(OWN_SIZE)[0])
            quarter = max(quarter, run(OWN_SIZE // 4)[0])
        assert elapsed < 11 * max(quarter, 0.01), (
            f"{kind} (or auto/detect) took {elapsed:.2f} s on {mb:.2f} MB of {shape} of line {i + 1} "
            f"{line[:60]!r}, {quarter:.2f} s on a quarter"
        )


@pytest.mark.parametrize(
    "data",
    [
        b"a\x00" * (MB // 4),
        b"\xff\xfe(" * (MB // 6),
        b"Tcp:\n" + b"    1 \xc3 segments\n" * (MB // 64),
    ],
    ids=["NUL", "invalid UTF-8", "invalid UTF-8 in lines"],
)
@pytest.mark.parametrize("kind", KINDS)
def test_binary_is_refused_quickly(kind: str, data: bytes) -> None:
    def run() -> None:
        parse(kind, read_text(data))

    elapsed = _timed(run)
    assert elapsed < SECONDS_PER_MB * len(data) / MB + SLACK_S
    with pytest.raises(ParseError, match="binary data|expected|no "):
        run()


def test_strace_file_path_is_linear_too(tmp_path: Path) -> None:
    """`perflab parse strace FILE` groups mapped bytes with the bytes pattern: same bound."""
    from perflab.parsers.cli import main

    data = SHAPES["strace ReDoS: ('(' + 'a'*31) * N"](SIZE).encode()
    f = tmp_path / "redos.txt"
    f.write_bytes(data + b"\nread(3, \"x\", 1) = 1\n")
    start = time.perf_counter()
    assert main(["strace", str(f)]) == 0  # the junk line is reported, the call counted
    assert time.perf_counter() - start < SECONDS_PER_MB * len(data) / MB + 1.0
