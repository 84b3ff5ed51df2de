"""One runner per cluster for periodic work: whoever holds a PostgreSQL advisory lock.

Each server process tries `pg_try_advisory_lock` on a connection of its own before each round of a
sweep; the one that gets it keeps it (and the connection) and runs every round, the others skip
theirs. If the holder dies its connection closes, PostgreSQL releases the lock, and another server
takes it at its next round. Sweeps are idempotent besides (each row updated under FOR UPDATE SKIP
LOCKED), so the moment of a hand-over cannot do harm either.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)

# Advisory lock keys (bigint), one per kind of periodic work.
SWEEP_LOCK = 0x7065_7266_0001


class Leadership:
    """`held()` (blocking: call it from a thread) says whether this process runs the work now."""

    def __init__(self, key: int) -> None:
        self.key = key
        self._conn: Any = None
        self._have = False
        self._lock = threading.Lock()

    def held(self) -> bool:
        from perflab.cluster import pg

        with self._lock:
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = pg.connect()
                    self._have = False
                if self._have:
                    # Still connected means still holding: a lost connection lost the lock.
                    self._conn.execute("SELECT 1")
                else:
                    row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
                    self._have = bool(row and row[0])
                    if self._have:
                        log.info("this server now runs the cluster's periodic sweeps (lock %#x)", self.key)
                return self._have
            except Exception:
                log.warning("advisory lock %#x: database unreachable", self.key, exc_info=True)
                self._drop()
                return False

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                log.debug("closing the lock connection failed", exc_info=True)
        self._conn = None
        self._have = False

    def release(self) -> None:
        """Hand the work over now (a stopping server): unlock before closing, since PostgreSQL frees a
        closed session's locks only once its backend has noticed the disconnect."""
        with self._lock:
            if self._have and self._conn is not None:
                try:
                    self._conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
                except Exception:
                    log.debug("unlock failed; closing the connection frees the lock", exc_info=True)
            self._drop()
