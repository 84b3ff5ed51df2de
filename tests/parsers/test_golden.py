"""Golden tests: every fixture parses to its reviewed .expected.json, and is detected as its kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from perflab.parsers import KINDS, detect, parse

from .corpus import FIXTURES, KIND_OF_DIR, expected_path, fixtures, options, run

CASES = fixtures()
IDS = [f"{p.parent.name}/{p.name}" for _, p in CASES]


def test_corpus_covers_every_kind() -> None:
    kinds = {kind for kind, _ in CASES}
    assert kinds == set(KINDS), f"kinds without a fixture: {set(KINDS) - kinds}"
    assert len(CASES) >= 80


@pytest.mark.parametrize(("kind", "path"), CASES, ids=IDS)
def test_golden(kind: str, path: Path) -> None:
    target = expected_path(path)
    assert target.exists(), (
        f"no golden file for {path.name}: run tests/parsers/regen_golden.py and review it"
    )
    expected = json.loads(target.read_text(encoding="utf-8"))
    got = run(kind, path)
    assert got == expected
    # what the API and the CLI send must be strict JSON (no NaN/Infinity)
    json.dumps(got, allow_nan=False)


@pytest.mark.parametrize(("kind", "path"), CASES, ids=IDS)
def test_detected_as_its_kind(kind: str, path: Path) -> None:
    assert detect(path.read_text(encoding="utf-8")) == kind


@pytest.mark.parametrize(("kind", "path"), CASES, ids=IDS)
def test_auto_equals_named_kind(kind: str, path: Path) -> None:
    expected = run(kind, path)
    if "error" in expected:
        return
    auto = parse("auto", path.read_text(encoding="utf-8"), **options(path))
    assert auto.pop("kind") == kind
    assert auto == expected


def test_every_fixture_is_listed_in_the_index() -> None:
    index = (FIXTURES / "INDEX.md").read_text(encoding="utf-8")
    missing = [
        f"{p.parent.name}/{p.name}"
        for _, p in CASES
        if f"{p.parent.name}/{p.name}" not in index
    ]
    assert not missing, f"fixtures not documented in tests/fixtures/INDEX.md: {missing}"


def test_no_stray_golden_files() -> None:
    for folder in KIND_OF_DIR:
        for golden in (FIXTURES / folder).glob("*.expected.json"):
            assert golden.with_name(
                golden.name.replace(".expected.json", ".txt")
            ).exists(), golden


def test_readme_documents_every_kind_from_the_docstrings() -> None:
    from perflab import parsers

    from .regen_golden import README, readme

    assert README.read_text(encoding="utf-8") == readme(), (
        "run tests/parsers/regen_golden.py"
    )
    for kind in parsers.KINDS:
        assert f"### `{kind}`" in README.read_text(encoding="utf-8")
