"""`perflab serve` from outside: gzip bombs, slow bodies, many headers, forged X-Forwarded-For,
and shutdown with live clients (RELIABILITY 4, 5; issue 9)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import psutil
import pytest

from tests.backend.test_http_limits import gzip_bomb
from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, make_user
from tests.system.harness import free_port, make_project_and_token, wait_healthy


class Serve:
    """`perflab serve` itself (not bare uvicorn): its signal handling and proxy settings are under test."""

    def __init__(self, home: Path, database_url: str | None, **env: str) -> None:
        self.port = free_port()
        self.home = home
        full = {k: v for k, v in os.environ.items() if k != "PERFLAB_DATABASE_URL"}
        if database_url:
            full["PERFLAB_DATABASE_URL"] = database_url
        full.update({"PERFLAB_HOME": str(home), "PERFLAB_PORT": str(self.port), "PERFLAB_ENV": "test", **env})
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / f"serve-{self.port}.log"
        self.proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve"], env=full,
                                     stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        self.wait_healthy()

    def wait_healthy(self, timeout: float = 90) -> None:
        wait_healthy(self.url, self.proc, self.log, timeout)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def conn(self, timeout: float = 10) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def rss(self) -> int:
        return int(psutil.Process(self.proc.pid).memory_info().rss)

    def stop(self) -> float:
        """SIGTERM; seconds until the process is gone."""
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("perflab serve ignored SIGTERM for 30 s") from None
        return time.monotonic() - started


@pytest.fixture
def server(db_engine: Any, database_url: str, tmp_path: Path) -> Iterator[Serve]:
    make_user()
    s = Serve(tmp_path / "home", database_url)
    try:
        yield s
    finally:
        s.stop()


class HealthWatch:
    """Polls /api/health in a thread and records the slowest answer (``worst``)."""

    def __init__(self, url: str, *, timeout_s: float = 10, interval_s: float = 0.05) -> None:
        self.url = url
        self.timeout_s = timeout_s
        self.interval_s = interval_s
        self.worst = 0.0
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            with urllib.request.urlopen(f"{self.url}/api/health", timeout=self.timeout_s) as r:
                assert r.status == 200
            self.worst = max(self.worst, time.monotonic() - started)
            self.count += 1
            time.sleep(self.interval_s)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def _post_raw(server: Serve, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, float]:
    """Send a body and read the answer even if the server answers (and closes) before it all went out."""
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "Connection: close\r\n\r\n"
    try:
        sock.sendall(head.encode())
        view = memoryview(body)
        for i in range(0, len(body), 65536):
            sock.sendall(view[i : i + 65536])
    except OSError:
        pass  # the server answered early and closed: read what it said
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except OSError:
        pass
    sock.close()
    status = int(data.split(b" ", 2)[1]) if data else 0
    return status, data.split(b"\r\n\r\n", 1)[-1], time.monotonic() - started


def test_gzip_bomb_before_login_is_413_fast_with_bounded_memory_and_health_stays_fast(server: Serve) -> None:
    bomb = gzip_bomb(512 * 1024 * 1024)
    before = server.rss()
    with HealthWatch(server.url) as health:
        status, body, elapsed = _post_raw(server, "/api/auth/login", bomb,
                                          {"Content-Encoding": "gzip", "Content-Type": "application/json"})
        time.sleep(0.3)
    assert status == 413, body
    assert elapsed < 1.0, f"413 after {elapsed:.2f} s"
    assert server.rss() - before < 50 * 1024 * 1024
    assert health.count > 0 and health.worst < 0.5, f"/api/health took {health.worst:.2f} s"


def test_authenticated_gzip_bomb_stops_at_the_inflated_cap(db_engine: Any, database_url: str, tmp_path: Path) -> None:
    token = make_project_and_token("bomb")
    server = Serve(tmp_path / "home", database_url, PERFLAB_MAX_DECOMPRESSED_BYTES=str(8 * 1024 * 1024))
    try:
        before = server.rss()
        with HealthWatch(server.url) as health:
            status, body, elapsed = _post_raw(
                server, "/api/projects/bomb/imports/preview", gzip_bomb(512 * 1024 * 1024),
                {"Content-Encoding": "gzip", "Content-Type": "application/json", "Authorization": f"Bearer {token}"},
            )
        assert status == 413 and b"decompressed" in body, body
        assert elapsed < 2.0
        assert server.rss() - before < 100 * 1024 * 1024
        assert health.worst < 0.5
    finally:
        server.stop()


def test_chunked_body_without_length_is_capped_while_it_streams(server: Serve) -> None:
    c = server.conn()

    def forever() -> Iterator[bytes]:
        for _ in range(10_000):  # 160 MB if nobody stopped it
            yield b"x" * 16384

    try:
        c.request("POST", "/api/auth/login", body=forever(), encode_chunked=True,
                  headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
    except OSError:
        pass
    r = c.getresponse()
    assert r.status == 413


def test_ten_thousand_part_multipart_is_refused_within_a_second(server: Serve) -> None:
    boundary = "zz"
    body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="f{i}"\r\n\r\nx\r\n' for i in range(10000))
    with HealthWatch(server.url) as health:
        status, _, elapsed = _post_raw(server, "/api/auth/login", (body + f"--{boundary}--\r\n").encode(),
                                       {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert 400 <= status < 500
    assert elapsed < 1.0
    assert health.worst < 0.5


def test_five_thousand_headers_are_refused_quickly(server: Serve) -> None:
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    head = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + "".join(f"X-H{i}: 1\r\n" for i in range(5000))
    try:
        sock.sendall((head + "Connection: close\r\n\r\n").encode())
    except OSError:
        pass
    data = sock.recv(4096)
    sock.close()
    assert data.split(b" ", 2)[1] in (b"400", b"431"), data[:200]
    assert time.monotonic() - started < 0.5


def _login(server: Serve, password: str, headers: dict[str, str]) -> int:
    c = server.conn()
    c.request("POST", "/api/auth/login", body=json.dumps({"email": ADMIN_EMAIL, "password": password}),
              headers={"Content-Type": "application/json", **headers})
    return c.getresponse().status


def test_rotating_x_forwarded_for_does_not_dodge_the_login_limit(server: Serve) -> None:
    statuses = [_login(server, "wrong", {"X-Forwarded-For": f"203.0.113.{i}"}) for i in range(12)]
    assert statuses[:10] == [401] * 10
    assert statuses[10:] == [429, 429]


def test_forwarded_for_is_believed_from_a_configured_proxy(db_engine: Any, database_url: str, tmp_path: Path) -> None:
    make_user()
    server = Serve(tmp_path / "home", database_url, PERFLAB_TRUSTED_PROXIES="127.0.0.1")
    try:
        statuses = [_login(server, "wrong", {"X-Forwarded-For": f"203.0.113.{i}"}) for i in range(12)]
        # Each forwarded address is its own client now; the per-account limit (20) is not reached.
        assert statuses == [401] * 12
    finally:
        server.stop()


def test_foreign_host_header_is_refused(server: Serve) -> None:
    assert _login(server, ADMIN_PASSWORD, {"Host": "evil.example", "Origin": "http://evil.example"}) == 400
    assert _login(server, ADMIN_PASSWORD, {}) == 200


def test_sigterm_with_a_live_run_page_and_a_long_poll_exits_within_5_s(db_engine: Any, database_url: str,
                                                                        tmp_path: Path) -> None:
    token = make_project_and_token("live")
    server = Serve(tmp_path / "home", database_url)
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    run_id = str(uuid.uuid4())
    c = server.conn()
    c.request("POST", "/api/agent/runs", headers=auth,
              body=json.dumps({"run_id": run_id, "experiment": "e", "wait_for_roles": []}))
    r = c.getresponse()
    assert r.status in (200, 201), r.read()
    r.read()
    # The live run page: its SSE stream.
    sse = server.conn(timeout=30)
    sse.request("GET", f"/api/runs/{run_id}/events", headers=auth)
    events = sse.getresponse()
    assert events.status == 200
    assert events.readline().startswith(b"event: run")
    # A daemon long-polling with nothing new to hear.
    agent = str(uuid.uuid4())
    c.request("POST", "/api/agent/hello", headers=auth,
              body=json.dumps({"agent_id": agent, "hostname": "proxy-1", "role": "proxy"}))
    hello = c.getresponse()
    assert hello.status == 200, hello.read()
    hello.read()
    poll = server.conn(timeout=30)
    answers: list[int] = []

    def long_poll() -> None:
        poll.request("GET", f"/api/agent/poll?agent_id={agent}&timeout=0", headers=auth)
        first = poll.getresponse()
        runs = json.loads(first.read())["runs"]
        known = ",".join(sorted(f"{r['run_id']}:{r['state']}" for r in runs))
        poll.request("GET", f"/api/agent/poll?agent_id={agent}&timeout=25&known={known}", headers=auth)
        resp = poll.getresponse()
        resp.read()
        answers.append(resp.status)

    t = threading.Thread(target=long_poll, daemon=True)
    t.start()
    time.sleep(1.5)
    took = server.stop()
    t.join(5)
    assert took < 5.0, f"perflab serve took {took:.1f} s to stop"
    assert server.proc.returncode is not None
    # The SSE stream was ended by the server, not cut.
    rest = events.read()
    assert b"event: shutdown" in rest or b"event: end" in rest, rest[-300:]
    # The long poll was answered (not cut) when the server began to stop, 20 s before its timeout.
    assert answers == [200]


def _postgres_pids(pgdata: Path) -> list[int]:
    pids = []
    for p in psutil.process_iter(["name", "cmdline"]):
        if p.info["name"] == "postgres" and str(pgdata) in " ".join(p.info["cmdline"] or []):
            pids.append(p.pid)
    return pids


def test_sigkilled_server_leaves_no_postgres_into_the_next_clean_stop(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = Serve(home, None)
    pgdata = home / "pgdata"
    orphan = _postgres_pids(pgdata)
    assert orphan
    first.proc.kill()
    first.proc.wait()
    # SIGKILL gives the server no chance to stop its PostgreSQL: the next start must find it.
    second = Serve(home, None)
    assert "left running by a server that was killed" in second.log.read_text()
    took = second.stop()
    assert took < 5.0, f"perflab serve took {took:.1f} s to stop"
    assert not _postgres_pids(pgdata), "the embedded PostgreSQL outlived the server"
