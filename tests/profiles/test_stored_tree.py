"""Profiles store their call tree at upload: tree and diff read it and never parse the folded stacks
again; profiles stored before trees were get theirs built on first read (or by `perflab profile
derive`) and keep working."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.parsers.profiles import load_profile, tree
from sqlalchemy import text
from sqlalchemy.engine import Engine

from .conftest import CAPTURES, read
from .test_api import _upload, run_id  # noqa: F401 - the fixture

PERF = CAPTURES / "default" / "perf-script.txt.gz"
OTHER = CAPTURES / "buffers-4x128k" / "perf-script.txt.gz"


def _two(client: TestClient, run: str) -> tuple[str, str]:
    a = _upload(client, run, read(PERF), name="default")
    b = _upload(client, run, read(OTHER), name="4x128k")
    assert a.status_code == b.status_code == 201, (a.text, b.text)
    return a.json()["profile_id"], b.json()["profile_id"]


def _column(engine: Engine, pid: str, column: str) -> Any:
    with engine.connect() as conn:
        return conn.execute(text(f"SELECT {column} FROM profile WHERE id = :id"), {"id": pid}).scalar()


# Views of small trees are computed in the request's thread, of large ones in a parser process.
WHERE = pytest.mark.parametrize("inline_bytes", [1 << 30, 0], ids=["in-thread", "parser-process"])


@WHERE
def test_tree_and_diff_read_the_tree_stored_at_upload(
    client: TestClient, run_id: str, db_engine: Engine, monkeypatch: pytest.MonkeyPatch, inline_bytes: int  # noqa: F811
) -> None:
    from perflab.profiles import parsing

    monkeypatch.setattr(parsing, "INLINE_VIEW_BYTES", inline_bytes)
    a, b = _two(client, run_id)
    assert _column(db_engine, a, "tree_z") is not None
    before_tree = client.get(f"/api/profiles/{a}/tree").json()
    before_diff = client.get(f"/api/profiles/{a}/diff", params={"other": b}).json()
    assert before_tree == tree(load_profile(read(PERF)))

    # Folded text that no longer parses: a read that parsed it would fail now.
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE profile SET folded_gz = 'not gzip' WHERE id IN (:a, :b)"), {"a": a, "b": b})

    assert client.get(f"/api/profiles/{a}/tree").json() == before_tree
    assert client.get(f"/api/profiles/{a}/diff", params={"other": b}).json() == before_diff
    assert client.get(f"/api/profiles/{a}/tree", params={"max_nodes": 10}).json()["pruned"]["nodes"] > 0


def test_a_profile_stored_before_trees_gets_its_tree_on_first_read(
    client: TestClient, run_id: str, db_engine: Engine  # noqa: F811
) -> None:
    a, b = _two(client, run_id)
    expected_tree = client.get(f"/api/profiles/{a}/tree").json()
    expected_diff = client.get(f"/api/profiles/{a}/diff", params={"other": b}).json()
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE profile SET tree_z = NULL"))

    assert client.get(f"/api/profiles/{a}/tree").json() == expected_tree
    assert _column(db_engine, a, "tree_z") is not None  # built once, kept
    assert _column(db_engine, b, "tree_z") is None
    assert client.get(f"/api/profiles/{a}/diff", params={"other": b}).json() == expected_diff
    assert _column(db_engine, b, "tree_z") is not None


def test_cli_derive_builds_the_missing_trees(
    client: TestClient, run_id: str, db_engine: Engine, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    from perflab.cli import main

    a, b = _two(client, run_id)
    expected = client.get(f"/api/profiles/{b}/tree").json()
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE profile SET tree_z = NULL"))

    assert main(["profile", "derive"]) == 0
    assert "built the call tree of 2 profiles" in capsys.readouterr().out
    assert _column(db_engine, a, "tree_z") is not None and _column(db_engine, b, "tree_z") is not None
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE profile SET folded_gz = 'not gzip'"))
    assert client.get(f"/api/profiles/{b}/tree").json() == expected
    assert main(["profile", "derive"]) == 0
    assert "built the call tree of 0 profiles" in capsys.readouterr().out


@WHERE
def test_a_damaged_stored_tree_is_rebuilt_not_served(
    client: TestClient, run_id: str, db_engine: Engine, monkeypatch: pytest.MonkeyPatch, inline_bytes: int  # noqa: F811
) -> None:
    from perflab.profiles import parsing

    monkeypatch.setattr(parsing, "INLINE_VIEW_BYTES", inline_bytes)
    a, _ = _two(client, run_id)
    expected = client.get(f"/api/profiles/{a}/tree").json()
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE profile SET tree_z = 'garbage' WHERE id = :a"), {"a": a})

    r = client.get(f"/api/profiles/{a}/tree")
    assert r.status_code == 503 and "retry" in r.json()["detail"]
    assert client.get(f"/api/profiles/{a}/tree").json() == expected


def test_a_refused_upload_leaves_nothing_stored(client: TestClient, run_id: str) -> None:  # noqa: F811
    """The body goes to storage before it is parsed: a refused one is removed again."""
    from perflab.config import get_settings

    store = get_settings().artifacts_dir

    def objects() -> set[str]:
        return {p.name for p in store.rglob("*") if p.is_file()}

    before = objects()
    bad = _upload(client, run_id, b"a;b 1\nnot a folded line\n", name="bad.folded")
    # 200 stacks of 4,097 frames under their own roots: 819,400 call paths, past the limit.
    bomb = _upload(client, run_id, b"".join(f"a{i};".encode() + b"b;" * 4095 + b"c 1\n" for i in range(200)))

    assert bad.status_code == 422 and "line 2" in bad.json()["detail"]
    assert bomb.status_code == 413 and "distinct call paths" in bomb.json()["detail"]
    assert objects() == before
    assert client.get(f"/api/runs/{run_id}/profiles").json() == []
