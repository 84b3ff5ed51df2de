"""A request body read from a worker thread, chunk by chunk, as it arrives (never whole in memory).

BodyLimitMiddleware has already capped it and inflated it when gzip-encoded; the thread that writes the
chunks somewhere (artifact storage, a spool file) pulls each one from the event loop.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
from fastapi import Request


def sync_chunks(request: Request) -> Iterator[bytes]:
    """The body's chunks, for a thread started by the request (run_in_threadpool)."""
    body = request.stream()
    while True:
        try:
            chunk = anyio.from_thread.run(body.__anext__)
        except StopAsyncIteration:
            return
        if chunk:
            yield chunk
