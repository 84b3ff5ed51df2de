"""One flag between emitters and the delivery loop: set after a commit that queued a delivery, so it
goes out within moments instead of at the next poll."""

from __future__ import annotations

import threading

_event = threading.Event()


def notify() -> None:
    _event.set()


def wait(timeout: float) -> bool:
    woken = _event.wait(timeout)
    _event.clear()
    return woken
