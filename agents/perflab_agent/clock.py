"""How far the server's clock is from ours, NTP-style: trust the exchanges with the shortest round trip.

One exchange says the server read its clock somewhere between our send and our receive; with 5 s of
backend latency, the midpoint guess can be seconds off although both clocks agree. Over several
exchanges, the one with the smallest round trip bounds the offset best (as NTP's clock filter does),
and its half round trip is the error bar the server weighs the offset against.
"""

import collections
import math
import threading
import time

# Exchanges kept: enough to span a latency spike of a few minutes at one heartbeat per 10 s.
WINDOW = 32
# Older exchanges than this say little about a clock that may have been stepped since.
MAX_AGE_S = 1800.0


class ClockEstimator:
    def __init__(self, window=WINDOW, max_age_s=MAX_AGE_S):
        self._samples = collections.deque(maxlen=window)
        self._max_age_s = max_age_s
        self._lock = threading.Lock()

    def add(self, server_time, t_send, t_recv, now=None):
        """One request/answer: our wall clock at send and receive, the server's clock in its answer."""
        if not isinstance(server_time, (int, float)) or isinstance(server_time, bool):
            return
        if t_recv < t_send or not math.isfinite(server_time):  # a stepped clock, or NaN
            return
        with self._lock:
            self._samples.append((now if now is not None else time.monotonic(), t_recv - t_send,
                                  server_time - (t_send + t_recv) / 2.0))

    def estimate(self, now=None):
        """(offset_s, error_s) from the fastest recent exchange, or (None, None) before any."""
        now = now if now is not None else time.monotonic()
        with self._lock:
            recent = [s for s in self._samples if now - s[0] <= self._max_age_s]
        if not recent:
            return None, None
        _, rtt, offset = min(recent, key=lambda s: s[1])
        return round(offset, 4), round(rtt / 2.0, 4)
