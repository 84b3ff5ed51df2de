"""`perflab serve` with the embedded PostgreSQL: first start, clean stop, restart on the same data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

from tests.system.harness import free_port


def _serve(home: Path, port: int, **env: str) -> subprocess.Popen[str]:
    full = {k: v for k, v in os.environ.items() if k != "PERFLAB_DATABASE_URL"}
    full.update({"PERFLAB_HOME": str(home), "PERFLAB_PORT": str(port), **env})
    return subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve"], env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _wait(port: int, proc: subprocess.Popen[str]) -> None:
    for _ in range(120):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2).read()
            return
        except OSError:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.5)
    raise AssertionError("perflab serve did not become healthy")


def _postgres_running(pgdata: Path) -> bool:
    for p in psutil.process_iter(["name", "cmdline"]):
        if p.info["name"] == "postgres" and str(pgdata) in " ".join(p.info["cmdline"] or []):
            return True
    return False


def _login(port: int, email: str, password: str) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/auth/login", method="POST",
                                 data=json.dumps({"email": email, "password": password}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        return int(urllib.request.urlopen(req, timeout=10).status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_embedded_postgres_starts_stops_cleanly_and_keeps_its_data(tmp_path: Path) -> None:
    home, port = tmp_path / "home", free_port()
    first = _serve(home, port)
    try:
        _wait(port, first)
        assert _postgres_running(home / "pgdata")
        # A second server on the same data directory refuses instead of sharing the files.
        second = _serve(home, free_port())
        out, _ = second.communicate(timeout=60)
        assert second.returncode == 1 and "already running" in out
    finally:
        first.send_signal(signal.SIGTERM)
        out, _ = first.communicate(timeout=60)
    password = next(line.split("with password ")[1].split()[0] for line in out.splitlines() if "with password" in line)
    assert "admin@localhost" in out
    assert not _postgres_running(home / "pgdata"), "the embedded PostgreSQL must stop with the server"

    again = _serve(home, port)
    try:
        _wait(port, again)
        # Same data: the account created on the first start logs in, and no new password is printed.
        assert _login(port, "admin@localhost", password) == 200
        assert _login(port, "admin@localhost", "admin") == 401
    finally:
        again.send_signal(signal.SIGTERM)
        out, _ = again.communicate(timeout=60)
    assert "with password" not in out
    assert not _postgres_running(home / "pgdata")
