"""Two `perflab serve` processes behind nginx, on one PostgreSQL and one S3 bucket (moto's server):
what a team on several servers notices works as on one (docs/scaling.md)."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import text

from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, make_user
from tests.objectstore import MotoServer, keys_in
from tests.system.cluster import LoadBalancer, ServeProcess
from tests.system.harness import Agent, counting_command, make_project_and_token, wait_for


class Cluster:
    def __init__(self, a: ServeProcess, b: ServeProcess, lb: LoadBalancer, moto: MotoServer, bucket: str) -> None:
        self.a, self.b, self.lb, self.moto, self.bucket = a, b, lb, moto, bucket


@pytest.fixture
def cluster(database_url: str, db_engine: Any, tmp_path: Path) -> Iterator[Cluster]:
    moto = MotoServer(tmp_path / "moto.log").start()
    # Not under pytest's 0700 tmp_path: nginx workers run as nobody.
    workdir = Path(tempfile.mkdtemp(prefix="perflab-lb-"))
    servers: list[ServeProcess] = []
    lb = None
    try:
        bucket = moto.make_bucket("perflab-artifacts")
        env = {**moto.env(bucket, prefix="perflab"), "PERFLAB_TRUSTED_PROXIES": "127.0.0.1"}
        servers = [ServeProcess(n, tmp_path / n, database_url, env) for n in ("a", "b")]
        for s in servers:
            s.start()
        lb = LoadBalancer(workdir, [s.port for s in servers]).start()
        yield Cluster(servers[0], servers[1], lb, moto, bucket)
    finally:
        if lb is not None:
            lb.stop()
        for s in servers:
            s.stop()
        moto.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _request(url: str, method: str, path: str, token: str | None = None, body: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    h = dict(headers or {})
    if token:
        h["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=body, headers=h)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def _load_lines(engine: Any, run_id: str) -> list[str]:
    from perflab.ingest.pipeline import decode_lines

    with engine.connect() as conn:
        chunks = conn.execute(text(
            "SELECT c.data_gz FROM raw_chunk c JOIN stream s ON s.id = c.stream_id "
            "WHERE c.run_id = :r AND s.name = 'load' ORDER BY c.seq"), {"r": run_id}).scalars().all()
    return [line for data in chunks for _, _, line in decode_lines(data)]


def _new_run(engine: Any, known: set[str]) -> str:
    def find() -> str | None:
        with engine.connect() as conn:
            ids = set(conn.execute(text("SELECT id::text FROM run")).scalars())
        new = ids - known
        return new.pop() if new else None

    run_id = str(wait_for(find, 30, "the agent's run"))
    known.add(run_id)
    return run_id


class _Via:
    """What harness.Agent needs of a server: its URL."""

    def __init__(self, url: str) -> None:
        self.url = url


def _agent_run(via: str, token: str, state: Path, seconds: float) -> tuple[threading.Thread, dict[str, Any]]:
    agent = Agent(_Via(via), token, state)  # type: ignore[arg-type]
    result: dict[str, Any] = {}

    def go() -> None:
        result["out"] = agent.run("--project", "cluster", "--experiment", "two-servers", "--json", "--",
                                  *counting_command(seconds), timeout=seconds + 120)

    t = threading.Thread(target=go)
    t.start()
    return t, result


def _watch(url: str, token: str, run_id: str) -> tuple[threading.Thread, list[dict[str, Any]]]:
    """The live run page's SSE stream, read in a thread: every snapshot, then {"end": True}."""
    events: list[dict[str, Any]] = []

    def read() -> None:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        conn.request("GET", f"/api/runs/{run_id}/events", headers={"Authorization": f"Bearer {token}"})
        r = conn.getresponse()
        assert r.status == 200
        name = None
        while True:
            line = r.readline()
            if not line:
                return
            line = line.strip()
            if line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: ") and name == "run":
                events.append({"at": time.monotonic(), **json.loads(line[6:])})
            elif line.startswith(b"data: ") and name == "end":
                events.append({"end": True})
                return

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, events


def _load_stream_lines(snap: dict[str, Any]) -> int:
    return sum(s["lines"] for s in snap.get("streams", []) if s["name"] == "load")


def test_two_servers_behind_a_load_balancer_act_as_one(cluster: Cluster, db_engine: Any, tmp_path: Path) -> None:
    a, b, lb = cluster.a, cluster.b, cluster.lb
    make_user()
    token = make_project_and_token("cluster")
    known: set[str] = set()

    # 1. A flame graph's worth of bytes uploaded through A downloads whole through B (it was a 500:
    # the bytes were on A's disk). 10 MiB goes up to the bucket as a multipart upload.
    run_id = str(uuid.uuid4())
    status, _, body = _request(a.url, "POST", "/api/agent/runs", token, json.dumps(
        {"run_id": run_id, "experiment": "uploads", "wait_for_roles": []}).encode(),
        {"Content-Type": "application/json"})
    assert status == 201, body
    known.add(run_id)
    upload = os.urandom(10 * 1024 * 1024)
    status, _, body = _request(a.url, "POST", f"/api/agent/runs/{run_id}/artifacts?kind=raw&name=perf.data",
                               token, upload)
    assert status == 201, body
    artifact_id = json.loads(body)["artifact_id"]
    status, headers, body = _request(b.url, "GET", f"/api/artifacts/{artifact_id}/download", token)
    assert status == 200 and hashlib.sha256(body).digest() == hashlib.sha256(upload).digest()
    assert [k.startswith("perflab/") for k in keys_in(cluster.moto, cluster.bucket)] == [True]

    # 2. An agent streams a run through A while its live page is open on B: B's page follows it.
    runner, result = _agent_run(a.url, token, tmp_path / "agent-a", 6)
    live_run = _new_run(db_engine, known)
    watcher, events = _watch(b.url, token, live_run)
    runner.join()
    watcher.join(30)
    assert json.loads(result["out"].stdout.splitlines()[-1])["status"] == "complete", result["out"].stderr
    assert events and events[-1] == {"end": True}, events
    counts = [_load_stream_lines(e) for e in events[:-1]]
    # Several snapshots while lines arrived (not one at the end), never going backwards, all 60 lines.
    assert len({c for c in counts if 0 < c < 60}) >= 3, counts
    assert counts == sorted(counts) and counts[-1] == 60 and events[-2]["status"] == "complete"

    # 3. Wrong passwords alternate between A and B (round robin): one limit of 10 for both.
    attacker = {"Content-Type": "application/json", "X-Forwarded-For": "198.51.100.7"}
    upstreams = set()
    statuses = []
    for _ in range(11):
        status, headers, _ = _request(lb.url, "POST", "/api/auth/login", None, json.dumps(
            {"email": ADMIN_EMAIL, "password": "wrong guess"}).encode(), attacker)
        statuses.append(status)
        upstreams.add(headers.get("x-upstream"))
    assert statuses == [401] * 10 + [429], statuses
    assert upstreams == {f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"}
    # The real user, from their own address, is not locked out by it.
    status, _, _ = _request(lb.url, "POST", "/api/auth/login", None, json.dumps(
        {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).encode(), {"Content-Type": "application/json"})
    assert status == 200

    # 4. A run streams through the load balancer and server A is killed -9 mid-run: B takes every
    # batch (the agent resends what A never answered) and no line is lost or doubled.
    runner, result = _agent_run(lb.url, token, tmp_path / "agent-lb", 8)
    killed_run = _new_run(db_engine, known)
    wait_for(lambda: len(_load_lines(db_engine, killed_run)) >= 15, 30, "lines through both servers")
    a.kill()
    runner.join()
    out = result["out"]
    assert json.loads(out.stdout.splitlines()[-1])["status"] == "complete", out.stderr
    assert _load_lines(db_engine, killed_run) == [f"line {i}" for i in range(1, 81)]


def test_serve_with_workers_shares_the_port_and_stops_gracefully(database_url: str, db_engine: Any,
                                                                  tmp_path: Path) -> None:
    import psutil

    make_user()
    token = make_project_and_token("workers")
    server = ServeProcess("w", tmp_path / "w", database_url, {})
    server.start(extra_args=("--workers", "2"))
    assert server.proc is not None
    try:
        workers = psutil.Process(server.proc.pid).children()
        # uvicorn's supervisor spawns the workers (and multiprocessing's resource tracker).
        assert len([p for p in workers if "spawn_main" in " ".join(p.cmdline())]) == 2, [p.cmdline() for p in workers]
        # A live page held open on one worker: SIGTERM ends it at once, as with one process.
        run_id = str(uuid.uuid4())
        status, _, body = _request(server.url, "POST", "/api/agent/runs", token, json.dumps(
            {"run_id": run_id, "experiment": "e", "wait_for_roles": []}).encode(), {"Content-Type": "application/json"})
        assert status == 201, body
        _, events = _watch(server.url, token, run_id)
        wait_for(lambda: events, 10, "the live page's first snapshot")
        for _ in range(6):
            status, _, _ = _request(server.url, "GET", "/api/health")
            assert status == 200
        started = time.monotonic()
        server.proc.terminate()
        server.proc.wait(30)
        assert time.monotonic() - started < 8
    finally:
        server.kill()
