"""What a parser process is handed: functions of the modules the fork server preloaded, so a large
view or a parse pays no imports of its own (perflab/profiles/parsing.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from .test_api import run_id  # noqa: F401 - the fixture
from .test_stored_tree import _two


def test_parses_and_large_views_run_only_what_the_fork_server_preloaded(
    client: TestClient, run_id: str, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """A function from another module is imported again in every parser process: a view handed
    perflab.profiles.service's wrapper spent 0.7 s importing the ORM before it started."""
    from perflab.profiles import parsing

    monkeypatch.setattr(parsing, "INLINE_VIEW_BYTES", 0)  # every view in a parser process
    handed: list[Any] = []
    real = parsing._in_child

    def spy(fn: Any, kwargs: dict[str, Any], niceness: int = parsing.NICENESS) -> Any:
        handed.extend(f for f in (fn, kwargs.get("fn")) if f is not None)
        return real(fn, kwargs, niceness)

    monkeypatch.setattr(parsing, "_in_child", spy)
    a, b = _two(client, run_id)
    assert client.get(f"/api/profiles/{a}/tree").status_code == 200
    assert client.get(f"/api/profiles/{a}/diff", params={"other": b}).status_code == 200
    # Imports run there too (imports/job.py).
    slug = client.get(f"/api/runs/{run_id}").json()["project_slug"]
    r = client.post(f"/api/projects/{slug}/imports/preview", json={"files": [{"name": "a.txt", "content": "x\n"}]})
    assert r.status_code == 200, r.text
    assert {f"{f.__module__}.{f.__name__}" for f in handed if f.__module__ not in parsing.PRELOAD} == set()
    assert {f.__name__ for f in handed} >= {"parse_stored", "tree_view", "diff_view", "preview_job"}
