"""Server shutdown as seen by requests that wait: SSE streams and agent long polls.

uvicorn waits for open connections before it stops; a stream that sleeps in a loop would keep it
waiting for minutes. `perflab serve` calls `begin()` on SIGTERM/SIGINT, and waiting loops sleep with
`pause()`, which returns early (True) once shutdown has begun so they can answer and end.
"""

from __future__ import annotations

import asyncio
import threading
import time

_stopping = threading.Event()
# How quickly a waiting request notices shutdown.
_STEP_S = 0.1
STEP_S = _STEP_S


def begin() -> None:
    _stopping.set()


def stopping() -> bool:
    return _stopping.is_set()


def reset() -> None:
    """For tests and for a process that serves again after a shutdown."""
    _stopping.clear()


async def pause(seconds: float) -> bool:
    """Sleep up to `seconds`; True (early) if the server is shutting down."""
    deadline = time.monotonic() + seconds
    while not _stopping.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(_STEP_S, left))
    return True
