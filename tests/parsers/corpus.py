"""The golden corpus: tests/fixtures/<dir>/<name>.txt with <name>.expected.json beside it.

A fixture may carry ``<name>.options.json`` (keyword options for ``parse``, e.g. vmstat's
``memory_unit`` when the capture was made with ``-S M`` and the text cannot tell).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(ROOT / "backend"))

# fixture folder -> parser kind
KIND_OF_DIR: dict[str, str] = {
    "wrk": "wrk",
    "wrk2": "wrk",
    "vmstat": "vmstat",
    "pidstat": "pidstat",
    "strace-c": "strace-c",
    "strace": "strace",
    "netqtop": "netqtop",
    "ss-s": "ss-s",
    "netstat-s": "netstat-s",
    "perf-stat": "perf-stat",
    "sysctl": "sysctl",
    "dmesg": "dmesg",
    "ss-ltn": "ss-ltn",
    "ss-tan": "ss-tan",
    "nginx-access": "nginx-access",
    "top": "top",
    "nstat": "nstat",
    "tsar": "tsar",
    "k6": "k6",
    "vegeta": "vegeta",
    "hey": "hey",
    "ab": "ab",
    "host-facts": "host-facts",
}


def fixtures() -> list[tuple[str, Path]]:
    """(kind, path) of every fixture, sorted."""
    out = []
    for folder, kind in KIND_OF_DIR.items():
        for path in sorted((FIXTURES / folder).glob("*.txt")):
            out.append((kind, path))
    return out


def options(path: Path) -> dict[str, Any]:
    opt = path.with_name(path.stem + ".options.json")
    return json.loads(opt.read_text()) if opt.exists() else {}


def expected_path(path: Path) -> Path:
    return path.with_name(path.stem + ".expected.json")


def run(kind: str, path: Path) -> dict[str, Any]:
    """What the golden file records: the parse result, or the error users would see."""
    from perflab.parsers import ParseError, parse

    text = path.read_text(encoding="utf-8")
    try:
        return parse(kind, text, **options(path))
    except ParseError as e:
        return {"error": {"message": e.message, "line": e.line}}
