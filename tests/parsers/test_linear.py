"""Every parser runs in time linear in its input, whatever the input is (issue 9: a 512 KB line of
``("(" + "a"*31) * N`` took the strace parser 4.6 s, quadratically more for longer lines, and
froze the import preview).

Each kind (and ``auto``, and ``detect``) gets adversarial text: one 10 MB line of one character,
long lines of brackets, '=' and ':' separators, digits, dashes, other tools' headers repeated,
NUL bytes and invalid UTF-8 (through ``read_text``, as the CLI and uploads read files). The bound
is generous (2 s per MB, best of two tries, on a slow shared machine) so it does not flake; a
quadratic parser misses it by orders of magnitude at these sizes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from perflab.parsers import KINDS, ParseError, detect, parse, read_text

MB = 1 << 20
SECONDS_PER_MB = 2.0
SLACK_S = 0.2


def _rep(unit: str, size: int) -> str:
    return unit * (size // len(unit))


SIZE = MB // 4
SHAPES: dict[str, Callable[[], str]] = {
    "10 MB line of one character": lambda: "a" * (10 * MB),
    "strace ReDoS: ('(' + 'a'*31) * N": lambda: _rep("(" + "a" * 31, 2 * SIZE),
    "brackets": lambda: _rep("([{<>}])", SIZE),
    "' = ' separators": lambda: _rep("a = (", SIZE),
    "': ' separators": lambda: _rep("a: ", SIZE),
    "digits and spaces": lambda: _rep("1 ", SIZE),
    "percent signs": lambda: _rep("9.5% ", SIZE),
    "dashes": lambda: "-" * SIZE,
    "commas": lambda: _rep("1,2,", SIZE),
    "strace -c headers": lambda: _rep(
        "% time     seconds  usecs/call     calls    errors syscall\n", SIZE
    ),
    "vmstat header and rows": lambda: _rep(
        " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st\n"
        " 1  0      0 100000   2000  30000    0    0     0     0  100  200  1  1 98  0  0\n",
        SIZE,
    ),
    "pidstat headers": lambda: _rep(
        "12:00:01 PM   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n",
        SIZE,
    ),
    "netstat -s section of one statistic repeated": lambda: "Tcp:\n"
    + _rep("    12345 active connection openings\n", SIZE),
    "sysctl continuation lines": lambda: _rep("dev.cdrom.info = a\n\tb\n", SIZE),
    "wrk2 spectrum rows": lambda: " Detailed Percentile spectrum:\n"
    + _rep("       1.000     0.100000           10         1.11\n", SIZE),
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
    text = SHAPES[shape]()
    mb = len(text) / MB
    if kind == "detect":
        elapsed = _timed(lambda: detect(text))
    else:
        elapsed = _timed(lambda: parse(kind, text))
    assert elapsed < SECONDS_PER_MB * mb + SLACK_S, (
        f"{kind} took {elapsed:.2f} s on {mb:.2f} MB of {shape}"
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
