"""The built UI is served for app routes; API paths never fall back to it; share pages don't leak."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient


@pytest.fixture
def ui_client(db_engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><div id=root></div>")
    (dist / "assets" / "app.js").write_text("console.log(1)")
    monkeypatch.setenv("PERFLAB_FRONTEND_DIST", str(dist))
    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path / "home"))
    from perflab.config import get_settings
    from perflab.main import create_app

    get_settings.cache_clear()
    with TestClient(create_app()) as c:
        yield c
    get_settings.cache_clear()


def test_app_routes_get_the_ui_and_api_paths_get_json_404(ui_client: TestClient) -> None:
    r = ui_client.get("/p/demo/compare?e=a")
    assert r.status_code == 200 and "id=root" in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert ui_client.get("/assets/app.js").text == "console.log(1)"
    r = ui_client.get("/api/does-not-exist")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    assert ui_client.get("/../../etc/passwd").status_code in (200, 404)
    assert "root:" not in ui_client.get("/..%2f..%2fetc/passwd").text


def test_share_pages_are_not_cached_indexed_or_referred(ui_client: TestClient) -> None:
    r = ui_client.get("/s/pls_sometoken")
    assert r.status_code == 200
    assert r.headers["cache-control"] == "private, no-store"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-robots-tag"] == "noindex"
