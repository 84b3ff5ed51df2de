"""Transcript splitting stays linear in its input whatever the text (prompt tests look at a bounded
head of each line, once): prompt floods, one huge line of sigils, thousands of tiny commands."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from perflab.parsers import parse
from perflab.parsers.split import split

SIZE = 1 << 18


def _rep(unit: str, size: int) -> str:
    return unit * (size // len(unit))


SHAPES: dict[str, Callable[[int], str]] = {
    "one line of sigils": lambda n: "$" * (8 * n),
    "one line of '# '": lambda n: _rep("# ", 8 * n),
    "one line of '@:~$'": lambda n: _rep("a@b:~$", 8 * n),
    "prompt per line, no output": lambda n: _rep("root@vm:~# nproc\n", n),
    "prompt and output per line": lambda n: _rep("$ cat /sys/fs/cgroup/cpuset/cpuset.cpus\n0-3\n", n),
    "bracket prompts of unknown commands": lambda n: _rep("[root@h ~]# ip route\ndefault via 10.0.0.1\n", n),
    "unknown commands with three-line outputs": lambda n: _rep(
        "[root@h ~]# ip route\ndefault via 10.0.0.1\n10.0.0.0/24 dev eth0\n10.1.0.0/24 dev eth1\n", n),
    "vmstat under one prompt": lambda n: "$ vmstat 1\n" + _rep(
        " 1  0      0 100000   2000  30000    0    0     0     0  100  200  1  1 98  0  0\n", n),
}


def _timed(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("shape", list(SHAPES))
def test_split_is_linear(shape: str) -> None:
    big, small = SHAPES[shape](SIZE), SHAPES[shape](SIZE // 4)
    elapsed, quarter = _timed(lambda: split(big)), _timed(lambda: split(small))
    if elapsed < 2.0 * len(big) / (1 << 20) + 0.2:  # the parsers' bound: 2 s per MB
        return
    assert elapsed < 11 * max(quarter, 0.01), f"{shape}: {elapsed:.2f} s, {quarter:.2f} s on a quarter"


def test_host_facts_on_a_huge_cat_is_linear() -> None:
    text = "$ cat /proc/cpuinfo\n" + _rep("processor\t: 0\nmodel name\t: X\n", SIZE)
    elapsed = _timed(lambda: parse("host-facts", text))
    assert elapsed < 2.0 * len(text) / (1 << 20) + 0.5
