"""The uvicorn server `perflab serve` runs, at module level so `--workers N` can hand it to its
worker processes (uvicorn pickles each worker's target and imports this module in the child)."""

from __future__ import annotations

from typing import Any

import uvicorn
from uvicorn.supervisors import multiprocess

from perflab import shutdown


class Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: Any) -> None:
        # Tell SSE streams and long polls to answer now, or uvicorn waits for them.
        shutdown.begin()
        super().handle_exit(sig, frame)


class WorkerProcess(multiprocess.Process):
    """A worker of `--workers N`: the same Server (and so the same graceful stop) as one process."""

    @property
    def server(self) -> uvicorn.Server:
        if self._server is None:
            self._server = Server(config=self.config)
        return self._server


def run(config: uvicorn.Config) -> None:
    """One process, or `config.workers` processes sharing one listening socket."""
    if config.workers > 1:
        # uvicorn's supervisor builds its workers from this module global; ours stop like one server.
        multiprocess.Process = WorkerProcess  # type: ignore[misc]
        sock = config.bind_socket()
        multiprocess.Multiprocess(config, sockets=[sock]).run()
    else:
        Server(config).run()
