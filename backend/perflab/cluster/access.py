"""Whether the viewers of open live-update streams may still read, checked for all of them at once.

Each open stream must stop soon after its caller loses access (a member removed, a session ended, a
token revoked). Checked per stream, that was a thread hop, a transaction and four primary-key reads per
viewer per second; here the first stream to ask once the verdicts are ACCESS_CHECK_S old re-checks every
(caller, project) of the process's open streams in one transaction of two queries (deps.still_read),
and the others read its verdicts.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from perflab.db import unit_of_work
from perflab.deps import Caller, still_read

# How old a verdict may be: a viewer who lost access stops receiving within about this long.
ACCESS_CHECK_S = 1.0

Pair = tuple[Caller, int]


class AccessChecks:
    def __init__(self, max_age_s: float = ACCESS_CHECK_S) -> None:
        self.max_age_s = max_age_s
        self._open: Counter[Pair] = Counter()
        self._allowed: set[Pair] = set()
        self._checked: set[Pair] = set()
        self._at = float("-inf")
        self._lock = threading.Lock()  # one re-check at a time; the streams asking meanwhile wait for it

    @contextmanager
    def watching(self, caller: Caller, project_id: int) -> Iterator[None]:
        pair = (caller, project_id)
        with self._lock:
            self._open[pair] += 1
        try:
            yield
        finally:
            with self._lock:
                self._open[pair] -= 1
                if self._open[pair] <= 0:
                    del self._open[pair]

    def allowed(self, caller: Caller, project_id: int) -> bool:
        """Blocking (a worker thread): the verdict for this stream, re-checking all when it is stale."""
        pair = (caller, project_id)
        with self._lock:
            if time.monotonic() - self._at >= self.max_age_s or pair not in self._checked:
                pairs = set(self._open) | {pair}
                with unit_of_work() as db:
                    self._allowed = still_read(db, pairs)
                self._checked = pairs
                self._at = time.monotonic()
            return pair in self._allowed


def checks_for(state: Any) -> AccessChecks:
    """The checks kept on the app's state."""
    checks: AccessChecks | None = getattr(state, "live_access", None)
    if checks is None:
        checks = state.live_access = AccessChecks()
    return checks
