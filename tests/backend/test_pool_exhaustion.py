"""Every pooled connection taken: requests get 503 with Retry-After, never a 500 (issue 9)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient


@pytest.fixture
def tiny_pool(database_url: str, db_engine: Any) -> Iterator[Any]:
    from perflab import db

    engine = db.make_engine(database_url, pool_size=1, max_overflow=0, pool_timeout=0.5)
    db.set_engine(engine)
    yield engine
    db.set_engine(db_engine)
    engine.dispose()


def test_pool_exhaustion_is_a_503_with_retry_after_and_health_still_answers(
    client: TestClient, project: dict[str, Any], tiny_pool: Any
) -> None:
    assert client.get(f"/api/projects/{project['slug']}").status_code == 200
    with tiny_pool.connect():  # the only connection, held as a stuck request would
        r = client.get(f"/api/projects/{project['slug']}")
        assert r.status_code == 503, r.text
        assert r.json()["error"] == "server_busy"
        assert int(r.headers["Retry-After"]) >= 1
        # Health pings on its own connection: a saturated pool is not a database outage.
        assert client.get("/api/health").status_code == 200
    assert client.get(f"/api/projects/{project['slug']}").status_code == 200


def test_a_row_locked_past_the_lock_timeout_is_a_503_not_a_hang(client: TestClient, project: dict[str, Any],
                                                                 db_engine: Any) -> None:
    from perflab import db
    from sqlalchemy import text

    slug = project["slug"]
    assert client.patch(f"/api/projects/{slug}", json={"description": "a"}).status_code == 200
    with db_engine.connect() as holder:
        holder.execute(text("SELECT 1 FROM project WHERE slug = :s FOR UPDATE"), {"s": slug})
        original, db.LOCK_TIMEOUT = db.LOCK_TIMEOUT, "300ms"  # 10 s in production; short for the test
        fresh = db.make_engine(str(db_engine.url.render_as_string(hide_password=False)))
        db.set_engine(fresh)
        try:
            r = client.patch(f"/api/projects/{slug}", json={"description": "b"})
        finally:
            db.LOCK_TIMEOUT = original
            db.set_engine(db_engine)
            fresh.dispose()
        holder.rollback()
    assert r.status_code == 503, r.text
    assert r.json()["error"] == "server_busy" and "Retry-After" in r.headers


def test_no_route_keeps_a_pooled_connection_from_one_thread_hop_to_the_next(app: Any) -> None:
    """A connection kept between hops can wait for a thread while every thread waits for a connection:
    300 concurrent requests then got 11 answers (tests/system/test_request_burst.py shows it live).
    Every sync dependency and route that uses the request's session must commit before it returns."""
    import inspect

    from fastapi.routing import APIRoute
    from perflab.deps import get_db

    def uses_session(dependant: Any) -> bool:
        return any(sub.call is get_db for sub in dependant.dependencies)

    keeping: list[str] = []
    checked = 0

    def walk(dependant: Any, path: str) -> None:
        nonlocal checked
        for sub in dependant.dependencies:
            if uses_session(sub):
                checked += 1
                if not getattr(sub.call, "releases_connection", False):
                    keeping.append(f"{path}: dependency {sub.call.__name__}")
            walk(sub, path)

    def routes(container: Any) -> Any:
        for route in container.routes:
            if hasattr(route, "original_router"):  # an included router (FastAPI keeps it whole)
                yield from routes(route.original_router)
            elif isinstance(route, APIRoute):
                yield route

    for route in routes(app):
        walk(route.dependant, route.path)
        if uses_session(route.dependant) and not inspect.iscoroutinefunction(route.dependant.call):
            checked += 1
            if not getattr(route.dependant.call, "releases_connection", False):
                keeping.append(f"{route.path}: route {route.name}")
    assert checked > 100, f"only {checked} dependencies and routes use a session: is the walk still finding them?"
    assert not keeping, keeping
