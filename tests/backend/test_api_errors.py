"""Bad input gets the error shape and the right status, never a 500."""

from __future__ import annotations

import gzip
from typing import Any

from fastapi.testclient import TestClient


def test_unknown_route_is_404_with_the_error_shape(client: TestClient) -> None:
    r = client.get("/api/nope")
    assert r.status_code == 404 and r.json() == {"error": "not_found", "detail": "no such route"}


def test_invalid_body_is_422_naming_the_field(client: TestClient) -> None:
    r = client.post("/api/projects", json={"name": ""})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "validation_error" and body["detail"][0]["loc"] == ["body", "name"]


def test_duplicate_project_is_409(client: TestClient, project: dict[str, Any]) -> None:
    r = client.post("/api/projects", json={"name": project["name"]})
    assert r.status_code == 409 and project["slug"] in r.json()["detail"]


def test_bad_run_id_is_400_not_500(client: TestClient) -> None:
    r = client.get("/api/runs/not-a-uuid")
    assert r.status_code == 400 and "not a run id" in r.json()["detail"]


def test_body_limit_holds_without_content_length(client: TestClient) -> None:
    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(20):
            yield b"x" * (1024 * 1024)

    r = client.post("/api/projects", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_gzip_bomb_is_refused_at_the_decompressed_cap(client: TestClient, monkeypatch: Any) -> None:
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024))
    assert len(bomb) < 200_000
    from perflab.main import create_app

    monkeypatch.setenv("PERFLAB_MAX_DECOMPRESSED_BYTES", str(8 * 1024 * 1024))
    from perflab.config import get_settings

    get_settings.cache_clear()
    with TestClient(create_app()) as c:
        r = c.post("/api/projects", content=bomb, headers={"Content-Encoding": "gzip", "Content-Type": "application/json"})
    assert r.status_code == 413


def test_database_down_is_503_with_retry_after(anon: TestClient) -> None:
    from perflab import db

    engine = db.get_engine()
    db.set_engine(db.make_engine("postgresql+psycopg://postgres@127.0.0.1:1/none", connect_args={"connect_timeout": 1}))
    try:
        r = anon.get("/api/health")
        assert r.status_code == 503 and r.json()["database"] == "unreachable"
        r = anon.get("/api/projects/x/experiments", headers={"Authorization": "Bearer plb_x"})
        assert r.status_code == 503 and r.headers["Retry-After"]
    finally:
        db.set_engine(engine)
