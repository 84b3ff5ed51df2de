"""A dedicated PostgreSQL connection outside the pool, for what lives as long as the process
(a LISTEN, an advisory lock held by the sweep's runner)."""

from __future__ import annotations

from typing import Any


def conninfo() -> str:
    """The libpq URI of the database the app's engine talks to."""
    from perflab.db import get_engine

    return get_engine().url.set(drivername="postgresql").render_as_string(hide_password=False)


def connect() -> Any:
    import psycopg

    return psycopg.connect(conninfo(), autocommit=True, connect_timeout=5)
