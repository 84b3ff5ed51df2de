"""`perflab serve` parses in a child process of its own (ingest/parse_process.py), not in the interpreter
that answers requests: with the embedded PostgreSQL (the child is handed its URL), restarted when it dies,
stopped with the server, and every sample stored once whatever happened to it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psutil

from tests.system.cluster import ServeProcess
from tests.system.harness import wait_for
from tests.system.test_http_hardening import Serve
from tests.system.test_serve import _postgres_running

VMSTAT_HEADER = [
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----",
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC",
]


def _vmstat_row(i: int) -> str:
    # `r` (run queue) carries the row's number: a sample lost or stored twice shows in that series.
    hh, mm, ss = 2 + i // 3600, (i // 60) % 60, i % 60
    return (f"{i:2d}  0      0 24038756   2384 453352    0    0     0     0 6158 58334 15 80  4  0  1 "
            f"2026-11-22 {hh:02d}:{mm:02d}:{ss:02d}")


def _cli(env: dict[str, str], *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "perflab.cli", *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _call(url: str, token: str, method: str = "GET", body: Any = None) -> Any:
    req = urllib.request.Request(url, method=method, headers={"Authorization": f"Bearer {token}",
                                                              "Content-Type": "application/json"},
                                 data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null")


def _parse_children(server_pid: int) -> list[psutil.Process]:
    out = []
    for child in psutil.Process(server_pid).children():
        try:
            argv = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        if argv[-3:] == ["worker", "--child-of", str(server_pid)]:
            out.append(child)
    return out


def test_serve_parses_in_a_supervised_child_process_that_loses_and_doubles_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = Serve(home, None)  # no PERFLAB_DATABASE_URL: the embedded PostgreSQL
    env = {k: v for k, v in os.environ.items() if k != "PERFLAB_DATABASE_URL"}
    env.update({"PERFLAB_HOME": str(home), "PERFLAB_ENV": "test"})
    try:
        pid = server.proc.pid
        # One parse process, the server's child, argv'd as `perflab worker --child-of PID`, niced below it.
        child = wait_for(lambda: _parse_children(pid), 30, "the parse process")[0]
        assert len(_parse_children(pid)) == 1
        wait_for(lambda: child.nice() > psutil.Process(pid).nice(), 30, "the parse process niced")

        _cli(env, "project", "create", "parse", "--slug", "parse")
        token = _cli(env, "token", "create", "--project", "parse")
        base = server.url
        _call(f"{base}/api/agent/hello", token, "POST", {"agent_id": "parse-agent", "hostname": "h", "role": "proxy"})
        run_id = str(uuid.uuid4())
        _call(f"{base}/api/agent/runs", token, "POST", {"run_id": run_id, "experiment": "e", "wait_for_roles": []})
        t0 = time.time()
        rows = 60

        def send(seq: int, closed: bool = False) -> None:
            # Five rows a batch, the header in the first.
            first = (seq - 1) * 5
            lines = ([[t0, 0.0, ln] for ln in VMSTAT_HEADER] if seq == 1 else []) + [
                [t0 + i, float(i), _vmstat_row(i)] for i in range(first, first + 5)]
            _call(f"{base}/api/ingest/batches", token, "POST", {"agent_id": "parse-agent", "batches": [
                {"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": seq,
                 "closed": closed, "lines": lines}]})

        def lag() -> dict[str, Any]:
            return dict(_call(f"{base}/api/runs/{run_id}", token)["parse_lag"])

        for seq in range(1, 5):
            send(seq)
        wait_for(lambda: lag()["chunks"] == 0, 30, "the first batches parsed")

        # Frozen parse process: batches are stored and answered, and nobody else parses them (not the
        # serving process: it has no parser of its own).
        child.send_signal(signal.SIGSTOP)
        for seq in range(5, 9):
            send(seq)
        time.sleep(3)
        assert lag()["chunks"] == 4

        # Killed: the server starts another, which parses what waits.
        child.send_signal(signal.SIGKILL)
        second = wait_for(lambda: [c for c in _parse_children(pid) if c.pid != child.pid], 30, "a new parse process")
        assert len(second) == 1
        wait_for(lambda: lag()["chunks"] == 0, 30, "the batches parsed by the restarted process")
        for seq in range(9, rows // 5 + 1):
            send(seq, closed=seq == rows // 5)
        wait_for(lambda: lag()["chunks"] == 0, 30, "the last batches parsed")

        series = _call(f"{base}/api/runs/{run_id}/series", token)
        runq = next(s for s in series if s["key"].endswith(".r") or s["metric"] == "r")
        data = _call(f"{base}/api/runs/{run_id}/series/data?ids={runq['id']}&max_points=10000", token)["series"][0]
        # Every row once, in order (the first, vmstat's averages since boot, is not a sample).
        assert data["v"] == [float(i) for i in range(1, rows)]
        assert {s["points"] for s in series} == {rows - 1}
        parse_pid = second[0].pid
    finally:
        took = server.stop()
    # Graceful stop takes the parse process with it, and the embedded PostgreSQL.
    assert took < 15
    assert not psutil.pid_exists(parse_pid) or psutil.Process(parse_pid).status() == psutil.STATUS_ZOMBIE
    assert not _postgres_running(home / "pgdata")


def test_serve_workers_n_runs_a_parse_process_per_http_process_and_none_when_parse_workers_are_off(
    database_url: str, db_engine: Any, tmp_path: Path
) -> None:
    server = ServeProcess("w", tmp_path / "w", database_url, {})
    server.start(extra_args=("--workers", "2"))
    assert server.proc is not None
    try:
        http = [p for p in psutil.Process(server.proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]
        assert len(http) == 2
        # One parse process per HTTP process (docs/scaling.md), none under uvicorn's supervisor itself.
        for proc in http:
            wait_for(lambda proc=proc: len(_parse_children(proc.pid)) == 1, 30, f"the parse process of {proc.pid}")
        assert _parse_children(server.proc.pid) == []
        parsers = [c for proc in http for c in _parse_children(proc.pid)]
        server.proc.terminate()
        server.proc.wait(30)
        # Stopped with their servers, not left behind.
        wait_for(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in parsers), 10,
                 "the parse processes gone")
    finally:
        server.kill()

    off = ServeProcess("off", tmp_path / "off", database_url, {"PERFLAB_PARSE_WORKERS": "false"})
    off.start()
    assert off.proc is not None
    try:
        time.sleep(2)  # a parse process would have been started with the app
        assert _parse_children(off.proc.pid) == []
    finally:
        off.stop()
