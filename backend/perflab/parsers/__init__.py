"""Tool output in, typed JSON-ready dicts out: one module per tool, standard library only.

    from perflab.parsers import parse, detect, ParseError, KINDS, line_parser

    parse("vmstat", text)        # -> dict, the schema in perflab.parsers.vmstat's docstring
    parse("vmstat", text, memory_unit="M")   # what `vmstat -S M` printed (the text can't say)
    parse("auto", text)          # -> the same, plus "kind"
    detect(text)                 # -> "wrk" | ... | None
    read_text(raw_bytes)         # gzip unpacked, UTF-8 decoded, binary refused (ParseError)

    p = line_parser("pidstat")   # streaming kinds: vmstat, pidstat, netqtop (STREAMING_KINDS)
    p.feed(line)                 # -> the records this line completed
    p.finish()                   # -> the last ones; raises ParseError if it never was pidstat
    p.result(records)            # -> the parse() document from all records
    saved = p.state()            # JSON-serialisable; resume(saved) continues, days later
    p.averages, p.warnings       # pidstat's Average lines (merged per pid/tid); warnings so far

    module("vmstat").METRICS     # metric -> unit, for charts (vmstat, pidstat, netqtop)

Each module (``wrk``, ``vmstat``, ``pidstat``, ``strace_c``, ``strace``, ``netqtop``, ``ss_s``,
``netstat_s``, ``perf_stat``, ``sysctl``, ``k6``, ``vegeta``, ``hey``, ``ab`` ...) documents its output
schema and units. The load generators (``LOAD_KINDS``: wrk, k6, vegeta, hey, ab) all return wrk's
document (``tool`` names the generator), so a run's load summary reads the same whichever made it. Bad input raises
``ParseError`` (a ``ValueError``) naming the line, and what the text looks like when that is known
(another kind, or another tool's table such as ``vmstat -d``'s disk statistics given as
``vmstat``); cut-off input yields what is there plus
``warnings``; numbers are never made up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ._common import JSON, LineParser, ParseError, check_text, split_lines
from ._load import LOAD_KINDS

__all__ = [
    "KINDS",
    "LOAD_KINDS",
    "STREAMING_KINDS",
    "LineParser",
    "ParseError",
    "detect",
    "line_parser",
    "module",
    "parse",
    "read_text",
    "resume",
]

KINDS: tuple[str, ...] = (
    "wrk",
    "vmstat",
    "pidstat",
    "strace-c",
    "strace",
    "netqtop",
    "ss-s",
    "netstat-s",
    "perf-stat",
    "sysctl",
    # the findings helper's kinds
    "dmesg",
    "ss-ltn",
    "ss-tan",
    "nginx-access",
    "top",
    "nstat",
    "tsar",
    # load generators beyond wrk: the same load summary (see _load.py)
    "k6",
    "vegeta",
    "hey",
    "ab",
    # lscpu, nproc, getconf, /proc/cpuinfo, cgroup files: the host's CPUs and limits
    "host-facts",
)
STREAMING_KINDS: tuple[str, ...] = ("vmstat", "pidstat", "netqtop")

# Modules load on first use: `perflab parse strace` should not pay for importing the others.
_MODULE_NAMES: dict[str, str] = {kind: kind.replace("-", "_") for kind in KINDS}
_LINE_PARSER_NAMES: dict[str, str] = {
    "vmstat": "VmstatLineParser",
    "pidstat": "PidstatLineParser",
    "netqtop": "NetqtopLineParser",
}


def module(kind: str) -> ModuleType:
    """The parser module of a kind (its ``parse``, ``sniff``, ``METRICS``, docstring)."""
    return importlib.import_module(f".{_MODULE_NAMES[kind]}", __name__)


def load_all() -> None:
    """Import every parser module now (a process that forks parser processes: see imports/job.py)."""
    for kind in KINDS:
        module(kind)


def _line_parser_class(kind: str) -> type[LineParser] | None:
    name = _LINE_PARSER_NAMES.get(kind)
    if name is None:
        return None
    cls: type[LineParser] = getattr(module(kind), name)
    return cls


# When two kinds are equally sure, the more specific one wins (a strace -c table inside a
# strace log is a strace -c result).
_PRIORITY = (
    "strace-c",
    "wrk",
    "k6",
    "vegeta",
    "hey",
    "ab",
    "pidstat",
    "vmstat",
    "netqtop",
    "perf-stat",
    "top",
    "tsar",
    "ss-ltn",
    "ss-tan",
    "ss-s",
    "netstat-s",
    "nstat",
    "nginx-access",
    "dmesg",
    "strace",
    "sysctl",
    "host-facts",
)


def parse(kind: str, text: str, **options: Any) -> JSON:
    """Parse ``text`` as ``kind`` (one of ``KINDS``, or ``"auto"``: the result then has "kind").

    ``options`` are per kind: ``memory_unit`` ("k", "K", "m", "M") for vmstat's ``-S``.
    """
    if not isinstance(text, str):
        raise TypeError("parse() takes text; decode bytes with read_text() first")
    check_text(text)
    if kind != "auto":
        text = _without_prompt(kind, text)
    else:
        found = detect(text)
        if found is None:
            first = next(
                ((n, ln) for n, ln in enumerate(split_lines(text), 1) if ln.strip()),
                None,
            )
            if first is None:
                raise ParseError("the input is empty", None)
            hint = _hint(text, None)
            raise ParseError(
                f"could not tell which tool printed this (first line {first[1].strip()[:60]!r});"
                + (f" {hint}, which perflab does not read;" if hint else "")
                + f" name the kind: {', '.join(KINDS)}",
                first[0],
            )
        found_result: JSON = module(found).parse(_without_prompt(found, text), **options)
        return {"kind": found, **found_result}
    if kind not in _MODULE_NAMES:
        raise ValueError(
            f"unknown kind {kind!r}; expected one of {', '.join(KINDS)} or 'auto'"
        )
    try:
        result: JSON = module(kind).parse(text, **options)
    except ParseError as e:
        hint = _hint(text, kind)
        if hint is None:
            raise
        raise ParseError(f"{e.message}; {hint}", e.line) from None
    return result


# Kinds that read the command line a transcript part begins with (vmstat's -S unit, netqtop's -n/-i,
# the file a host fact was read from); the others are given the text with that line blanked.
_READS_PROMPT = frozenset({"vmstat", "netqtop", "host-facts"})


def _without_prompt(kind: str, text: str) -> str:
    """``text`` with its first line blanked (line numbers kept) when that line is a shell prompt
    with a command ('$ ss -tan', as a transcript part starts) and ``kind`` does not read it."""
    if kind in _READS_PROMPT:
        return text
    start = 0
    while start < len(text) and text[start] in "\r\n":
        start += 1
    end = text.find("\n", start)
    first = text[start:] if end < 0 else text[start:end]
    if first[:1] in "$#%([" or "@" in first[:80] or first[:1].isalpha():
        from .transcript import prompt

        if prompt(first.removesuffix("\r")) is not None:
            return text[:start] + ("" if end < 0 else text[end:])
    return text


def _hint(text: str, kind: str | None) -> str | None:
    """What a refused text looks like instead: another kind, or a known output of another tool
    (vmstat -d's disk table given as vmstat)."""
    from ._lookalike import looks_like

    lines = split_lines(text[:65536])
    other = looks_like(lines)
    if other is not None:
        return f"this looks like {other}"
    if kind is not None and "\x00" not in text[:65536]:
        found = detect(text)
        if found is not None and found != kind:
            return f"this looks like {found} output: parse it as {found}"
    return None


def detect(text: str) -> str | None:
    """The kind of tool output ``text`` most likely is, or None."""
    if not isinstance(text, str):
        return None
    head = text[:262144]
    if "\x00" in head:
        return None
    lines = split_lines(head)[:400]
    scores: dict[str, float] = {}
    for kind in KINDS:
        sniff: Callable[[list[str]], float] = module(kind).sniff
        scores[kind] = sniff(lines)
    best = max(scores.values())
    if best < 0.5:
        return None
    return next(k for k in _PRIORITY if scores[k] == best)


def line_parser(kind: str, **options: Any) -> LineParser:
    """A fresh streaming parser for vmstat, pidstat or netqtop (``LineParser.from_state`` resumes)."""
    cls = _line_parser_class(kind)
    if cls is None:
        raise ValueError(
            f"{kind!r} has no line parser; streaming kinds: {', '.join(STREAMING_KINDS)}"
        )
    parser: LineParser = cls(**options)
    return parser


def resume(state: JSON) -> LineParser:
    """A line parser rebuilt from ``LineParser.state()``, whatever its kind."""
    cls = _line_parser_class(str(state.get("kind")))
    if cls is None:
        raise ValueError("not a line parser state")
    return cls.from_state(state)


def read_text(data: bytes) -> str:
    """Decode an uploaded or piped file: gzip is unpacked, UTF-8 expected (Latin-1 tolerated);
    binary data raises ParseError."""
    from ._io import read_text as _read_text

    return _read_text(data)
