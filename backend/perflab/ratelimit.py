"""In-process sliding-window limits on failures (login, share-token guessing).

Per process: behind a load balancer each server counts its own misses, which still bounds guessing.
The client address is the TCP peer unless the peer is a trusted proxy (PERFLAB_TRUSTED_PROXIES,
applied by uvicorn), so a rotating X-Forwarded-For header does not make a new client.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import deque

from perflab.errors import TooManyRequests

# Keys are attacker-chosen (addresses, e-mail addresses): sweep expired ones once the table is this big.
_SWEEP_AT = 10_000


class MissLimiter:
    def __init__(self, *, max_misses: int, window_s: float, what: str) -> None:
        self.max_misses = max_misses
        self.window_s = window_s
        self.what = what
        self._misses: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._sweep_at = _SWEEP_AT

    def _prune(self, q: deque[float], now: float) -> None:
        while q and now - q[0] > self.window_s:
            q.popleft()

    def blocked_for(self, key: str) -> int:
        """Seconds until `key` may try again; 0 if it may now."""
        now = time.monotonic()
        with self._lock:
            q = self._misses.get(key)
            if q is None:
                return 0
            self._prune(q, now)
            if len(q) < self.max_misses:
                return 0
            return int(self.window_s - (now - q[0])) + 1

    def check(self, key: str) -> None:
        retry = self.blocked_for(key)
        if retry:
            raise TooManyRequests(f"too many failed {self.what}; retry in {retry} s", retry_after=retry)

    def miss(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._misses.setdefault(key, deque()).append(now)
            if len(self._misses) >= self._sweep_at:
                for k in [k for k, q in self._misses.items() if not q or now - q[-1] > self.window_s]:
                    del self._misses[k]
                # Amortised linear: the next sweep waits until the table has doubled.
                self._sweep_at = max(_SWEEP_AT, 2 * len(self._misses))

    def reset(self) -> None:
        with self._lock:
            self._misses.clear()
            self._sweep_at = _SWEEP_AT

    def __len__(self) -> int:
        return len(self._misses)


login_limiter = MissLimiter(max_misses=10, window_s=60, what="logins")
# Per account, across every address: bounds a password-guessing botnet. It counts only failures and
# is skipped for a browser holding the account's known-device cookie, so an attacker who trips it
# cannot lock the real user out of a browser they have logged in from before.
account_limiter = MissLimiter(max_misses=20, window_s=15 * 60, what="logins for this account")
share_limiter = MissLimiter(max_misses=20, window_s=60, what="share-link attempts")

KNOWN_DEVICE_COOKIE = "perflab_device"


def known_device_value(secret_key: str, email: str) -> str:
    """The known-device cookie for an account: proves a past successful login from this browser."""
    message = ("known-device:" + email.strip().lower()).encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()


def is_known_device(secret_key: str, email: str, cookie: str | None) -> bool:
    return cookie is not None and hmac.compare_digest(cookie, known_device_value(secret_key, email))
