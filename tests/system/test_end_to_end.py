"""A run captured whole with real processes: perflab server, nginx proxy+upstream, agent daemon, wrk."""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from perflab.demo import NginxPair
from sqlalchemy import text

from tests.system.harness import (
    Agent,
    Server,
    free_port,
    get_json,
    make_project_and_token,
    wait_for,
)


@pytest.fixture
def nginx() -> Any:
    # Not under pytest's tmp_path: nginx workers run as nobody and must traverse the directory.
    workdir = Path(tempfile.mkdtemp(prefix="perflab-nginx-"))
    pair = NginxPair(workdir, upstream_port=free_port(), proxy_port=free_port())
    pair.start()
    yield pair
    pair.stop()
    shutil.rmtree(workdir, ignore_errors=True)


def test_a_run_on_loopback_is_captured_whole(database_url: str, db_engine: Any, tmp_path: Path, nginx: NginxPair,
                                             session: Any) -> None:
    assert shutil.which("wrk") and shutil.which("pidstat") and shutil.which("strace"), "make test installs them"
    token = make_project_and_token()
    server = Server(database_url, tmp_path / "home")
    server.start()
    agent = Agent(server, token, tmp_path / "proxy-agent")
    try:
        agent.daemon("--role", "proxy", "--collect", "vmstat", "--collect", "pidstat:nginx",
                     "--collect", "strace-c:nginx:2", "--collect", "perf:nginx:2",
                     "--config-file", str(nginx.proxy_conf), "--sysctl", "net.core.somaxconn")
        wait_for(lambda: get_json(f"{server.url}/api/projects/e2e/hosts", token), 30, "the daemon's hello")
        out = agent.run("--project", "e2e", "--experiment", "default", "--wait-for", "proxy", "--json", "--",
                        "wrk", "-c", "50", "-t", "2", "-d", "9s", "--latency", nginx.page_url(True))
        assert out.returncode == 0, out.stderr + out.stdout
        result = json.loads(out.stdout.strip().splitlines()[-1])
        run_id = result["run_id"]
        uuid.UUID(run_id)
        detail = wait_for(
            lambda: (d := get_json(f"{server.url}/api/runs/{run_id}", token))["status"] in ("complete", "partial")
            and d, 90, "the run to end")
    finally:
        agent.stop_daemon()
        server.stop()
    assert detail["status"] == "complete", detail["status_reasons"]
    assert [h["role"] for h in detail["hosts"]] == ["proxy"]
    kinds = {(s["role"], s["kind"]) for s in detail["summaries"]}
    assert ("loadgen", "wrk") in kinds or any(k == "wrk" for _, k in kinds)
    assert any(k == "strace-c" for _, k in kinds), kinds
    averages = next(s["data"] for s in detail["summaries"] if s["kind"] == "pidstat-averages")
    assert averages["averages"] and all(a["command"] == "nginx" for a in averages["averages"])
    wrk = next(s["data"] for s in detail["summaries"] if s["kind"] == "wrk")
    assert wrk["requests_per_sec"] > 100 and wrk["latency_percentiles_ms"]["99"] > 0
    assert detail["headline"]["requests_per_sec"] == wrk["requests_per_sec"]
    streams = {s["name"]: s for s in detail["streams"]}
    assert streams["vmstat"]["samples"] > 0 and streams["pidstat:nginx"]["samples"] > 0
    # Every line the tools printed arrived exactly once: seqs 1..N, no gaps.
    rows = session.execute(text(
        "SELECT s.name, count(c.seq), max(c.seq), sum(c.line_count), s.lines FROM stream s "
        "JOIN raw_chunk c ON c.stream_id = s.id WHERE s.run_id = :r GROUP BY s.name, s.lines"), {"r": run_id}).all()
    for name, n, max_seq, line_sum, lines in rows:
        assert n == max_seq and line_sum == lines, name
    profiles = session.execute(text("SELECT format, unit, total FROM profile WHERE run_id = :r"), {"r": run_id}).all()
    assert len(profiles) == 1 and profiles[0][0] == "perf-script" and profiles[0][2] > 0, profiles
    artifacts = session.execute(text("SELECT kind, name FROM artifact WHERE run_id = :r"), {"r": run_id}).all()
    assert any(k == "config" and "proxy.conf" in n for k, n in artifacts), artifacts
    assert any(k == "sysctl" for k, _ in artifacts), artifacts
