"""`perflab serve`'s parse worker as a child process, supervised by the serving process.

A parse worker thread in the serving interpreter shared its GIL with the request threads: with 40 live
agents a batch's answer waited behind parsing (p99 1.5 s for a 5 ms insert). So a served app (`create_app(
parse_process=True)`: `perflab serve`, one per uvicorn worker process of `--workers N`) runs
`perflab worker --child-of PID` instead: its own interpreter, niced so that requests win the CPU when both
want it. The child gets the database URL this process resolved (the embedded PostgreSQL's included), so it
never starts or attaches to a database of its own.

Supervision: a child that exits while the server runs is started again (after 1 s, doubling up to 30 s
while it keeps dying young); a parse it was in the middle of rolls back and the next child parses the same
chunks (ingest/workers.py). At shutdown it gets SIGTERM and a wake-up notice, and SIGKILL if it has not
stopped after STOP_GRACE_S (a killed parse loses nothing either). The child runs in its own session, so a
Ctrl-C in the terminal reaches only the server, which stops it; and it stops by itself within a second
when the server is gone (SIGKILL), so a crashed server leaves no parser behind.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path

from perflab import shutdown

log = logging.getLogger(__name__)

# Requests first: at nice 10 the scheduler gives the parser about a tenth of a contended core against a
# request thread at 0, and all it wants when the cores are idle.
NICE = 10
STOP_GRACE_S = 5.0
RESTART_MIN_S = 1.0
RESTART_MAX_S = 30.0
# A child that ran this long died of something else than how it starts: the next restart is quick again.
HEALTHY_S = 60.0


def command(parent: int) -> list[str]:
    return [sys.executable, "-m", "perflab.cli", "worker", "--child-of", str(parent)]


def environment(database_url: str) -> dict[str, str]:
    import perflab

    # The package this server runs, first on the child's path (a checkout run without installing).
    here = str(Path(perflab.__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PERFLAB_DATABASE_URL": database_url,
            "PYTHONPATH": here + (os.pathsep + path if path else "")}


class ParseProcess:
    """Keeps one parse child running until `stop()`."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.proc: asyncio.subprocess.Process | None = None
        self._stopping = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise())

    async def _spawn(self) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *command(os.getpid()), env=environment(self.database_url), stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True)

    async def _supervise(self) -> None:
        delay = RESTART_MIN_S
        while not (self._stopping or shutdown.stopping()):
            began = time.monotonic()
            try:
                self.proc = proc = await self._spawn()
            except OSError:
                log.exception("parse process: cannot start it; trying again in %.0f s", delay)
            else:
                if self._stopping:  # stop() came while it started
                    await self._terminate(proc)
                    return
                code = await proc.wait()
                if self._stopping or shutdown.stopping():
                    return
                log.warning("parse process %d exited (%s); starting another in %.0f s", proc.pid, code, delay)
            if time.monotonic() - began >= HEALTHY_S:
                delay = RESTART_MIN_S
            # Waiting out the delay, but not past a shutdown.
            deadline = time.monotonic() + delay
            while not (self._stopping or shutdown.stopping()) and time.monotonic() < deadline:
                await asyncio.sleep(min(0.1, deadline - time.monotonic()))
            delay = min(delay * 2, RESTART_MAX_S)

    async def _terminate(self, proc: asyncio.subprocess.Process) -> None:
        """SIGTERM, a notice to wake it from its LISTEN, and SIGKILL after STOP_GRACE_S."""
        from perflab.ingest import workers

        if proc.returncode is not None:
            return
        try:
            proc.terminate()
        except ProcessLookupError:
            return
        await asyncio.to_thread(workers.wake)
        try:
            await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
        except TimeoutError:
            log.warning("parse process %d did not stop in %.0f s; killing it", proc.pid, STOP_GRACE_S)
            proc.kill()
            await proc.wait()

    async def stop(self) -> None:
        self._stopping = True
        if self.proc is not None:
            await self._terminate(self.proc)
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, STOP_GRACE_S + 1)
            except (TimeoutError, asyncio.CancelledError):
                pass
