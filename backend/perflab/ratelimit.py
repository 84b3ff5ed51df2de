"""In-process sliding-window limits on failures (login, share-token guessing).

Per process: behind a load balancer each server counts its own misses, which still bounds guessing.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

from perflab.errors import TooManyRequests


class MissLimiter:
    def __init__(self, *, max_misses: int, window_s: float, what: str) -> None:
        self.max_misses = max_misses
        self.window_s = window_s
        self.what = what
        self._misses: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _prune(self, q: deque[float], now: float) -> None:
        while q and now - q[0] > self.window_s:
            q.popleft()

    def check(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            q = self._misses[key]
            self._prune(q, now)
            if len(q) >= self.max_misses:
                retry = int(self.window_s - (now - q[0])) + 1
                raise TooManyRequests(f"too many failed {self.what}; retry in {retry} s", retry_after=retry)

    def miss(self, key: str) -> None:
        with self._lock:
            self._misses[key].append(time.monotonic())

    def reset(self) -> None:
        with self._lock:
            self._misses.clear()


login_limiter = MissLimiter(max_misses=10, window_s=60, what="logins")
share_limiter = MissLimiter(max_misses=20, window_s=60, what="share-link attempts")
