"""Differential check against a peer parser: for every fixture that jc (kellyjonbrazil/jc, the
JSON-converting CLI) also parses, our numbers and jc's agree field by field.

Kinds covered: vmstat (every layout jc reads: default, -a, -w, -t, wide), pidstat (``-h``
layouts, the only ones jc reads) and sysctl (Linux ``name = value`` and BSD/macOS ``name:
value``, multi-line values). Field names are mapped explicitly below; a field jc reports that we
drop, or a number that differs, fails the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jc
import pytest
from perflab.parsers import parse

from .corpus import FIXTURES, options

# jc's vmstat field -> our column
VMSTAT: dict[str, str] = {
    "runnable_procs": "r",
    "uninterruptible_sleeping_procs": "b",
    "virtual_mem_used": "swpd",
    "free_mem": "free",
    "buffer_mem": "buff",
    "cache_mem": "cache",
    "inactive_mem": "inact",
    "active_mem": "active",
    "swap_in": "si",
    "swap_out": "so",
    "blocks_in": "bi",
    "blocks_out": "bo",
    "interrupts": "in",
    "context_switches": "cs",
    "user_time": "us",
    "system_time": "sy",
    "idle_time": "id",
    "io_wait_time": "wa",
    "stolen_time": "st",
}

# jc's pidstat -h field -> our sample field
PIDSTAT: dict[str, str] = {
    "uid": "uid",
    "pid": "pid",
    "percent_usr": "usr_pct",
    "percent_system": "system_pct",
    "percent_guest": "guest_pct",
    "percent_wait": "wait_pct",
    "percent_cpu": "cpu_pct",
    "cpu": "cpu",
    "minflt_s": "minflt_per_s",
    "majflt_s": "majflt_per_s",
    "vsz": "vsz_kb",
    "rss": "rss_kb",
    "percent_mem": "mem_pct",
    "stksize": "stk_size_kb",
    "stkref": "stk_ref_kb",
    "kb_rd_s": "kb_rd_per_s",
    "kb_wr_s": "kb_wr_per_s",
    "kb_ccwr_s": "kb_ccwr_per_s",
    "iodelay": "iodelay_ticks",
    "cswch_s": "cswch_per_s",
    "nvcswch_s": "nvcswch_per_s",
    "threads": "threads",
    "fd_nr": "fd_nr",
    "prio": "prio",
    "policy": "policy",
    "command": "command",
}


def _num(value: Any) -> Any:
    # jc leaves some pidstat columns as text ("139"); compare them as the numbers they are
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def _cases(folder: str, keep: Any) -> list[Path]:
    return [
        p
        for p in sorted((FIXTURES / folder).glob("*.txt"))
        if not options(p) and keep(p.read_text(encoding="utf-8"))
    ]


def _plain_vmstat(text: str) -> bool:
    # jc reads C-locale English headers only (not zh_CN's), without a pasted prompt
    return " r  b " in text and text.isascii() and "$ " not in text and "..." not in text


VMSTAT_CASES = _cases("vmstat", _plain_vmstat)
PIDSTAT_CASES = _cases(
    "pidstat", lambda t: t.lstrip().startswith("Linux") and "\n#" in t and "AM" not in t and "PM" not in t
)
SYSCTL_CASES = sorted((FIXTURES / "sysctl").glob("*.txt"))


def test_the_peer_covers_enough_fixtures() -> None:
    assert len(VMSTAT_CASES) >= 10 and len(PIDSTAT_CASES) >= 4 and len(SYSCTL_CASES) >= 5


@pytest.mark.parametrize("path", VMSTAT_CASES, ids=[p.name for p in VMSTAT_CASES])
def test_vmstat_agrees_with_jc(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    theirs = jc.parse("vmstat", text, quiet=True)
    ours = parse("vmstat", text)["samples"]
    assert len(ours) == len(theirs)
    for n, (a, b) in enumerate(zip(ours, theirs)):
        for jc_key, key in VMSTAT.items():
            if b.get(jc_key) is not None:
                assert a.get(key) == b[jc_key], f"row {n} {key}: ours {a.get(key)} jc {b[jc_key]}"


@pytest.mark.parametrize("path", PIDSTAT_CASES, ids=[p.name for p in PIDSTAT_CASES])
def test_pidstat_h_agrees_with_jc(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    theirs = jc.parse("pidstat", text, quiet=True)
    ours = parse("pidstat", text)["samples"]
    assert len(ours) == len(theirs) > 0
    compared = 0
    for n, (a, b) in enumerate(zip(ours, theirs)):
        for jc_key, key in PIDSTAT.items():
            if b.get(jc_key) is not None:
                assert _num(a.get(key)) == _num(b[jc_key]), (
                    f"row {n} {key}: ours {a.get(key)!r} jc {b[jc_key]!r}"
                )
                compared += 1
    assert compared >= len(ours) * 4


@pytest.mark.parametrize("path", SYSCTL_CASES, ids=[p.name for p in SYSCTL_CASES])
def test_sysctl_agrees_with_jc(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    # jc picks one delimiter from the first line
    assert " = " in first or ": " in first, f"{path.name}: not a sysctl -a layout jc reads"
    theirs = jc.parse("sysctl", text, quiet=True)
    ours = parse("sysctl", text)
    assert set(ours["values"]) == set(theirs)
    for name, value in theirs.items():
        if isinstance(value, (int, float)):
            assert ours["numbers"].get(name) == value, name
        else:
            # jc keeps the tool's spacing and a value's trailing blank line (BSD's
            # kern.version ends in a newline); we fold runs of spaces per line and drop those
            folded = "\n".join(" ".join(line.split()) for line in str(value).split("\n"))
            folded = folded.rstrip("\n")
            assert ours["values"][name] == folded, name
