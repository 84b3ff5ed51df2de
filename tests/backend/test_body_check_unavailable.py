"""The body-size middleware checks credentials through the database before the route runs (to lift
the 16 KiB anonymous cap): with PostgreSQL down or every pooled connection taken, a large or
gzip-encoded body got `500 text/plain` (issue 21: 63 such 500s in a 10 s outage, every agent batch
over 1 KiB). It is a 503 JSON with Retry-After, like any route's answer in an outage."""

from __future__ import annotations

import gzip
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once closed


@pytest.fixture
def database_down(db_engine: Any) -> Iterator[None]:
    """The application's engine points at a PostgreSQL that is not there (connection refused)."""
    from perflab import db

    engine = db.make_engine(f"postgresql+psycopg://perflab@127.0.0.1:{_closed_port()}/perflab", pool_timeout=0.5)
    db.set_engine(engine)
    yield
    db.set_engine(db_engine)
    engine.dispose()


@pytest.fixture
def pool_taken(database_url: str, db_engine: Any) -> Iterator[Any]:
    from perflab import db

    engine = db.make_engine(database_url, pool_size=1, max_overflow=0, pool_timeout=0.5)
    db.set_engine(engine)
    with engine.connect():  # the only connection, held as a stuck request would
        yield engine
    db.set_engine(db_engine)
    engine.dispose()


BATCH = json.dumps({"agent_id": "a", "batches": [{"lines": ["x" * 40] * 100}]}).encode()
# Past the anonymous 16 KiB cap once inflated: the middleware checks the credentials before inflating more.
LARGE_BATCH = json.dumps({"agent_id": "a", "batches": [{"lines": ["x" * 40] * 500}]}).encode()
LARGE = b'{"name": "' + b"x" * (32 * 1024) + b'"}'


def _requests(client: TestClient) -> list[Any]:
    auth = {"Authorization": "Bearer plb_not_checked_yet", "Content-Type": "application/json"}
    gz = {**auth, "Content-Encoding": "gzip"}
    return [
        # An agent batch, gzip-encoded, small once inflated: the route's token check meets the outage.
        client.post("/api/ingest/batches", content=gzip.compress(BATCH), headers=gz),
        # One past the anonymous cap once inflated: the middleware's check meets it first.
        client.post("/api/ingest/batches", content=gzip.compress(LARGE_BATCH), headers=gz),
        # A body past the anonymous cap, its length declared.
        client.post("/api/projects", content=LARGE, headers=auth),
        # The same, sent chunked (no length): the check happens while the body streams in.
        client.post("/api/projects", content=iter([LARGE[:20000], LARGE[20000:]]), headers=auth),
    ]


def _assert_retry_later(responses: list[Any], error: str) -> None:
    for r in responses:
        assert r.status_code == 503, (r.status_code, r.text[:200])
        assert r.headers["content-type"].startswith("application/json"), r.headers
        assert r.json()["error"] == error, r.text
        assert int(r.headers["Retry-After"]) >= 1


def test_large_and_gzip_bodies_are_a_503_with_retry_after_while_the_database_is_down(
    app: Any, database_down: None
) -> None:
    with TestClient(app, raise_server_exceptions=False) as client:
        _assert_retry_later(_requests(client), "database_unavailable")


def test_large_and_gzip_bodies_are_a_503_with_retry_after_while_the_pool_is_taken(app: Any, pool_taken: Any) -> None:
    with TestClient(app, raise_server_exceptions=False) as client:
        _assert_retry_later(_requests(client), "server_busy")
