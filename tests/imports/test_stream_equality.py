"""An import of a streaming kind stores exactly what the record-per-line import stored.

Every vmstat, pidstat and netqtop fixture (named kind and auto), the captures, transcripts, refused files and
the edge cases of tests/imports/stream_cases.py are previewed and imported through the parser process's job,
and everything stored is compared with stream_expected.json.gz, written by the import before it streamed
(commit 2e13a2e): answers, run window and status reasons, streams and their parser state, raw lines and their
times, series in creation order with units, points and statistics, chunks byte for byte, summaries, artifacts.
Once with the blocks the import reads, once with blocks of a few lines, so that every fixture crosses block
boundaries (headers, pidstat intervals and netqtop tables cut in two).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.imports import stream_cases

EXPECTED: dict[str, Any] = json.loads(gzip.decompress(stream_cases.EXPECTED.read_bytes()))


def _first_difference(got: Any, want: Any, where: str = "") -> str | None:
    if type(got) is not type(want):
        return f"{where}: {got!r:.200} != {want!r:.200}"
    if isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if key not in got or key not in want:
                return f"{where}.{key}: only in {'expected' if key in want else 'stored'}"
            found = _first_difference(got[key], want[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(want, list):
        for i, (g, w) in enumerate(zip(got, want, strict=False)):
            found = _first_difference(g, w, f"{where}[{i}]")
            if found:
                return found
        return None if len(got) == len(want) else f"{where}: {len(got)} items, expected {len(want)}"
    return None if got == want else f"{where}: {got!r:.300} != {want!r:.300}"


@pytest.fixture
def project_id(db_engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    from perflab.config import get_settings
    from perflab.db import unit_of_work
    from perflab.projects import service as projects

    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    with unit_of_work() as s:
        return projects.create_project(s, name="streams", slug="streams").id


@pytest.mark.parametrize("block_chars", [None, 7])
def test_every_streaming_import_stores_what_the_line_by_line_import_stored(
        project_id: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_chars: int | None) -> None:
    from perflab.imports import streaming

    if block_chars is not None:
        monkeypatch.setattr(streaming, "BLOCK_CHARS", block_chars)
    cases = stream_cases.cases()
    assert sorted(case for case, _ in cases) == sorted(EXPECTED), "the cases changed: regenerate from 2e13a2e"
    differences = []
    for case, files in cases:
        got = json.loads(json.dumps(stream_cases.run_case(case, files, project_id, tmp_path)))
        found = _first_difference(got, EXPECTED[case])
        if found:
            differences.append(f"{case}: {found}")
    assert not differences, "\n".join(differences)
