"""Running the real agent as a subprocess, on the oldest Python we support, for tests (and end-to-end
tests against the real server: pass its URL and a token instead of a FakeServer's)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "agents"
# The oldest Python the agent supports; the agent must run on it, so tests use it.
def _oldest_python() -> str:
    """PERFLAB_AGENT_PYTHON, else the oldest Python 3 that pyenv or PATH offers, else this one."""
    override = os.environ.get("PERFLAB_AGENT_PYTHON")
    if override:
        return override
    candidates: list[tuple[tuple[int, ...], str]] = []
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False).stdout.strip()
        for exe in Path(root).glob("versions/3.*/bin/python3") if root else []:
            version = exe.parent.parent.name
            if re.fullmatch(r"3\.\d+\.\d+", version):
                candidates.append((tuple(int(x) for x in version.split(".")), str(exe)))
    for minor in range(6, 12):
        found = shutil.which(f"python3.{minor}")
        if found:
            candidates.append(((3, minor), found))
    for _, exe in sorted(candidates):
        if subprocess.run([exe, "-c", "pass"], capture_output=True, check=False).returncode == 0:
            return exe
    return sys.executable


PY36 = _oldest_python()


def agent_env(server_url: str, token: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(AGENTS), PERFLAB_SERVER=server_url, PERFLAB_TOKEN=token)
    env.update(extra)
    return env


def agent_argv(*args: str) -> list[str]:
    return [PY36, "-m", "perflab_agent", *args]


class AgentProcess:
    """A running `perflab-agent ...`; its stdout and stderr go to files under `log_dir`."""

    def __init__(self, args: list[str], env: dict[str, str], log_dir: Path, name: str = "agent"):
        log_dir.mkdir(parents=True, exist_ok=True)
        self.stdout_path = log_dir / (name + ".stdout")
        self.stderr_path = log_dir / (name + ".stderr")
        # Open for the process's lifetime, closed by stop/kill/wait.
        self._out = open(self.stdout_path, "ab")
        self._err = open(self.stderr_path, "ab")
        self.proc = subprocess.Popen(agent_argv(*args), env=env, stdout=self._out, stderr=self._err,
                                     stdin=subprocess.DEVNULL)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def children(self) -> list[int]:
        """PIDs of the tools the agent started (from every thread's children list)."""
        pids = []
        for task in Path(f"/proc/{self.pid}/task").glob("*"):
            try:
                pids += [int(p) for p in (task / "children").read_text().split()]
            except OSError:
                pass
        return pids

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM (a graceful stop) and wait."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        finally:
            self._close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self._close()

    def wait(self, timeout: float = 60.0) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self._close()

    def _close(self) -> None:
        self._out.close()
        self._err.close()

    def stdout(self) -> str:
        return self.stdout_path.read_text(errors="replace")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def start_daemon(server_url: str, token: str, state_dir: Path, *args: str, role: str = "proxy",
                 log_dir: Path | None = None) -> AgentProcess:
    """`perflab-agent daemon` with short poll and heartbeat intervals, so tests do not wait."""
    argv = ["daemon", "--state-dir", str(state_dir), "--role", role, "--poll-timeout", "2",
            "--heartbeat-interval", "1", *args]
    return AgentProcess(argv, agent_env(server_url, token), log_dir or state_dir, name="daemon")


def run_agent(server_url: str, token: str, *args: str, timeout: float = 120.0,
              **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(agent_argv(*args), env=agent_env(server_url, token, **env), capture_output=True, check=False,
                          text=True, timeout=timeout)


def json_documents(text: str) -> list[Any]:
    """The JSON values printed one after another (what `daemon --test` prints)."""
    decoder, docs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = decoder.raw_decode(text, i)
        docs.append(doc)


def wait_until(predicate: Any, timeout: float = 30.0, what: str = "condition", interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)
