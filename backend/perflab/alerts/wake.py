"""One flag between emitters and the delivery loop: set after a commit that queued a delivery, so it
goes out within moments instead of at the next poll."""

from __future__ import annotations

import asyncio
import threading

_event = threading.Event()


def notify() -> None:
    _event.set()


async def wait(timeout: float, tick: float = 0.1) -> bool:
    """Sleep until notified or ``timeout`` passes, on the event loop: no thread waits, so a server
    shutting down is not held up by this."""
    waited = 0.0
    while not _event.is_set() and waited < timeout:
        await asyncio.sleep(tick)
        waited += tick
    woken = _event.is_set()
    _event.clear()
    return woken
