"""Sliding-window limits on failures (login, share-token guessing), counted in PostgreSQL.

Every `perflab serve` process behind a load balancer (and every worker of `--workers N`) shares one
count, so ten wrong passwords are ten whichever servers receive them. One row per (limiter, key)
keeps the times of its latest misses (at most `max_misses`, within the window), updated by one
atomic upsert, so concurrent misses on several servers are all counted. Times are the database's
clock: servers with skewed clocks still agree. Expired rows are deleted by the cluster sweep
(`prune_expired`), which bounds the table under a flood of attacker-chosen keys.

The client address is the TCP peer unless the peer is a trusted proxy (PERFLAB_TRUSTED_PROXIES,
applied by uvicorn), so a rotating X-Forwarded-For header does not make a new client.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlalchemy import text
from sqlalchemy.engine import Engine

from perflab.errors import TooManyRequests

_MISS = text("""
INSERT INTO rate_limit_miss AS r (limiter, key_hash, misses, expires_at)
VALUES (:limiter, :key, ARRAY[clock_timestamp()], clock_timestamp() + :window)
ON CONFLICT (limiter, key_hash) DO UPDATE SET
  misses = ARRAY(SELECT t FROM unnest(r.misses || clock_timestamp()) AS t
                 WHERE t > clock_timestamp() - :window ORDER BY t DESC LIMIT :keep),
  expires_at = clock_timestamp() + :window
""")
# Seconds until the oldest of the last `max` misses leaves the window; 0 when fewer than `max` are in it.
_BLOCKED = text("""
SELECT count(*) AS n, EXTRACT(EPOCH FROM min(t) + :window - clock_timestamp()) AS left_s
FROM (SELECT t FROM rate_limit_miss r, unnest(r.misses) AS t
      WHERE r.limiter = :limiter AND r.key_hash = :key AND t > clock_timestamp() - :window
      ORDER BY t DESC LIMIT :max) recent
""")


def _engine() -> Engine:
    from perflab.db import get_engine

    return get_engine()


class MissLimiter:
    """At most `max_misses` failures per key within `window_s` seconds, across every server.

    `name` identifies the count in the database (default: `what`); two limiters with the same name
    share it."""

    def __init__(self, *, max_misses: int, window_s: float, what: str, name: str | None = None) -> None:
        self.max_misses = max_misses
        self.window_s = window_s
        self.what = what
        self.name = (name or what)[:64]

    @staticmethod
    def _key(key: str) -> str:
        # Keys are attacker-chosen (addresses, e-mail addresses): store a fixed-size digest.
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def blocked_for(self, key: str) -> int:
        """Seconds until `key` may try again; 0 if it may now."""
        with _engine().connect() as conn:
            n, left = conn.execute(_BLOCKED, {"limiter": self.name, "key": self._key(key),
                                              "window": timedelta(seconds=self.window_s),
                                              "max": self.max_misses}).one()
        if n < self.max_misses or left is None or float(left) <= 0:
            return 0
        return int(float(left)) + 1

    def check(self, key: str) -> None:
        retry = self.blocked_for(key)
        if retry:
            raise TooManyRequests(f"too many failed {self.what}; retry in {retry} s", retry_after=retry)

    def miss(self, key: str) -> None:
        # Its own transaction: a miss counts even when the request that saw it rolls back.
        with _engine().begin() as conn:
            conn.execute(_MISS, {"limiter": self.name, "key": self._key(key),
                                 "window": timedelta(seconds=self.window_s), "keep": max(1, self.max_misses)})

    def reset(self) -> None:
        with _engine().begin() as conn:
            conn.execute(text("DELETE FROM rate_limit_miss WHERE limiter = :l"), {"l": self.name})

    def __len__(self) -> int:
        """Keys with a miss still in the window."""
        with _engine().connect() as conn:
            return int(conn.scalar(text("SELECT count(*) FROM rate_limit_miss WHERE limiter = :l "
                                        "AND expires_at > clock_timestamp()"), {"l": self.name}) or 0)


def prune_expired() -> int:
    """Delete every key whose last miss has left its window (run by the cluster-wide sweep)."""
    with _engine().begin() as conn:
        return int(conn.execute(text("DELETE FROM rate_limit_miss WHERE expires_at < clock_timestamp()")).rowcount)


login_limiter = MissLimiter(max_misses=10, window_s=60, what="logins")
# Per account, across every address: bounds a password-guessing botnet. It counts only failures and
# is skipped for a browser holding the account's known-device cookie, so an attacker who trips it
# cannot lock the real user out of a browser they have logged in from before.
account_limiter = MissLimiter(max_misses=20, window_s=15 * 60, what="logins for this account")
share_limiter = MissLimiter(max_misses=20, window_s=60, what="share-link attempts")

KNOWN_DEVICE_COOKIE = "perflab_device"
