"""Live run pages: one poller per watched run per process, woken by PostgreSQL LISTEN/NOTIFY.

A trigger on `run` and `stream` (migration 20261125_scaling_cluster) sends `NOTIFY perflab_run,
'<run id>'` when a transaction that changed a run commits, whichever server or worker wrote it. Each
server process keeps one listening connection (a thread), and one feed per run that somebody watches
here: the feed computes the run's snapshot once when woken and every viewer of that run on this
process is handed the same snapshot. Ten viewers cost what one costs; an idle run costs one query
every `IDLE_S` (a safety net for a notice lost while the listening connection reconnected, and for
status changes that only time brings, such as a silent run).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.concurrency import run_in_threadpool

log = logging.getLogger(__name__)

CHANNEL = "perflab_run"
# A woken feed recomputes at most this often: a run taking 40 batches a second is read a few times.
MIN_INTERVAL_S = 0.25
# Without a notice, a feed recomputes this often anyway (listener up) / while the listener is down.
IDLE_S = 5.0
DEGRADED_S = 1.0

Snapshot = dict[str, Any]


class Feed:
    """The latest snapshot of one run, shared by every viewer of it on this process."""

    def __init__(self, run_id: uuid.UUID) -> None:
        self.run_id = run_id
        self.snapshot: Snapshot | None = None
        self.version = 0
        self.viewers = 0
        self.computed = 0
        self.error: BaseException | None = None
        self._changed = asyncio.Event()
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def publish(self, snap: Snapshot) -> None:
        if snap != self.snapshot:
            self.snapshot = snap
            self.version += 1
            self._changed.set()
            self._changed = asyncio.Event()

    async def changed_since(self, version: int, timeout: float) -> bool:
        """Wait until the snapshot is newer than `version`, at most `timeout` seconds."""
        if self.version != version:
            return True
        event = self._changed
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass
        return self.version != version


class Hub:
    """Feeds of one process (one event loop), and the thread that listens for notices."""

    def __init__(self, snapshot: Callable[[uuid.UUID], Snapshot]) -> None:
        self.snapshot = snapshot
        self.feeds: dict[uuid.UUID, Feed] = {}
        self.loop = asyncio.get_running_loop()
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # The listening thread ---------------------------------------------------------------------
    def _ensure_listener(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._listen, name="perflab-listen", daemon=True)
            self._thread.start()

    def _listen(self) -> None:
        from perflab.cluster import pg

        while not self._stop.is_set():
            conn = None
            try:
                conn = pg.connect()
                conn.execute(f"LISTEN {CHANNEL}")
                self.listening.set()
                # Notices may have been missed while (re)connecting: every feed looks once.
                self._post(None)
                while not self._stop.is_set():
                    for n in conn.notifies(timeout=1.0):
                        self._post(n.payload)
            except Exception:
                if not self._stop.is_set():
                    log.warning("live updates: listening connection lost; reconnecting", exc_info=True)
            finally:
                self.listening.clear()
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:
                        log.debug("closing the listening connection failed", exc_info=True)
            self._stop.wait(1.0)

    def _post(self, payload: str | None) -> None:
        try:
            self.loop.call_soon_threadsafe(self.notify, payload)
        except RuntimeError:  # the loop has closed: the process is stopping
            self._stop.set()

    def notify(self, payload: str | None) -> None:
        """A run changed (payload: its id), or every run may have (None)."""
        if payload is None:
            for feed in self.feeds.values():
                feed.wake.set()
            return
        try:
            one = self.feeds.get(uuid.UUID(payload))
        except ValueError:
            return
        if one is not None:
            one.wake.set()

    def close(self) -> None:
        self._stop.set()
        for feed in self.feeds.values():
            if feed.task is not None:
                feed.task.cancel()
        self.feeds.clear()

    # Feeds ------------------------------------------------------------------------------------
    async def _poll(self, feed: Feed) -> None:
        while True:
            feed.wake.clear()
            try:
                snap = await run_in_threadpool(self.snapshot, feed.run_id)
                feed.computed += 1
                feed.error = None
                feed.publish(snap)
            except Exception as exc:
                log.warning("live updates: snapshot of run %s failed", feed.run_id, exc_info=True)
                feed.error = exc
            idle = IDLE_S if self.listening.is_set() else DEGRADED_S
            try:
                await asyncio.wait_for(feed.wake.wait(), idle)
            except TimeoutError:
                pass
            await asyncio.sleep(MIN_INTERVAL_S)

    @asynccontextmanager
    async def watch(self, run_id: uuid.UUID) -> AsyncIterator[Feed]:
        self._ensure_listener()
        found = self.feeds.get(run_id)
        if found is None:
            feed = self.feeds[run_id] = Feed(run_id)
            feed.task = asyncio.create_task(self._poll(feed))
        else:
            feed = found
        feed.viewers += 1
        try:
            yield feed
        finally:
            feed.viewers -= 1
            if feed.viewers == 0 and self.feeds.get(run_id) is feed:
                del self.feeds[run_id]
                if feed.task is not None:
                    feed.task.cancel()


def hub_for(state: Any, snapshot: Callable[[uuid.UUID], Snapshot]) -> Hub:
    """The hub kept on the app's state, made on first use by the loop that serves the app."""
    hub: Hub | None = getattr(state, "live_hub", None)
    if hub is None or hub.loop is not asyncio.get_running_loop():
        if hub is not None:
            hub.close()
        hub = Hub(snapshot)
        state.live_hub = hub
    return hub


def close(state: Any) -> None:
    hub: Hub | None = getattr(state, "live_hub", None)
    if hub is not None:
        hub.close()
        state.live_hub = None
