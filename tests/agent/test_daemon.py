"""The real daemon (a subprocess on the oldest supported Python, running the real vmstat) against the fake
server: a run captured whole, a crash with the server down, a slow server, `daemon --test`."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import json_documents, run_agent, start_daemon, wait_until


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _agent_id(server: FakeServer) -> str:
    return wait_until(lambda: next(iter(server.hosts), None), 20, "hello")


def _spooled_lines(state: Path) -> set[tuple[float, str]]:
    found = set()
    for path in (state / "spool").glob("*/*/[0-9]*.json"):
        found.update((line[0], line[2]) for line in json.loads(path.read_text())["lines"])
    return found


def _vmstat_rows(lines: list[list[Any]]) -> list[list[Any]]:
    """Sample rows (not the header lines vmstat repeats)."""
    return [line for line in lines if line[2].split() and line[2].split()[0].isdigit()]


def test_daemon_captures_a_run_from_join_to_closed_streams(server: FakeServer, tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text("worker_processes 2;\n")
    run_id = server.create_run(state="waiting")
    # pidstat watches the vmstat collector itself: a process that is sure to exist.
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", "vmstat",
                          "--collect", "pidstat:vmstat", "--collect", "netqtop:eth0", "--config-file", str(conf),
                          "--config-file", str(tmp_path / "missing.conf"), "--sysctl", "net.core.somaxconn")
    try:
        agent_id = _agent_id(server)
        hello = server.hosts[agent_id]
        assert hello["role"] == "proxy" and hello["facts"]["cpus_online"] >= 1
        assert hello["facts"]["tool_versions"]["vmstat"].startswith("vmstat from procps")
        assert hello["capabilities"]["vmstat"] == {"available": True}
        assert hello["capabilities"]["netqtop:eth0"]["available"] is False
        assert "bcc" in hello["capabilities"]["netqtop:eth0"]["reason"]
        join = wait_until(lambda: server.joined(run_id).get(agent_id), 20, "join")
        assert join["streams"] == ["vmstat", "pidstat:vmstat"]
        assert set(join["failed"]) == {"netqtop:eth0", "config:%s" % (tmp_path / "missing.conf")}

        server.set_state(run_id, "running")
        wait_until(lambda: len(_vmstat_rows(server.lines(run_id, "vmstat"))) >= 4, 20, "vmstat samples")
        tools = daemon.children()
        server.end_run(run_id)
        wait_until(lambda: server.stream_closed(run_id, "vmstat"), 20, "closed vmstat stream")
        wait_until(lambda: server.stream_closed(run_id, "pidstat:vmstat"), 20, "closed pidstat stream")
        wait_until(lambda: not any(_alive(pid) for pid in tools), 10, "vmstat stopped")

        lines = server.lines(run_id, "vmstat")
        assert lines[0][2].startswith("procs") and lines[1][2].split()[:3] == ["r", "b", "swpd"]
        rows = _vmstat_rows(lines)
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(rows)]
        # Stamped on arrival, one a second (a busy machine may delay one line, not the cadence).
        assert max(gaps) < 2.0 and 0.85 < sum(gaps) / len(gaps) < 1.15, gaps
        assert all(b[1] > a[1] for a, b in itertools.pairwise(lines)), "monotonic stamps increase"
        pidstat = [line[2] for line in server.lines(run_id, "pidstat:vmstat")]
        assert any(t.startswith("# Time") and t.split()[-1] == "Command" for t in pidstat)
        assert any(t.split()[-1:] == ["vmstat"] and t.split()[0][0].isdigit() for t in pidstat), pidstat
        assert [b["seq"] for b in server.batches(run_id, "vmstat")] == list(
            range(1, len(server.batches(run_id, "vmstat")) + 1))
        kinds = wait_until(lambda: {a["kind"]: a for a in server.artifacts} if len(server.artifacts) == 2 else None,
                           10, "snapshots")
        assert kinds["config"]["body"] == b"worker_processes 2;\n" and kinds["config"]["name"] == str(conf)
        assert kinds["sysctl"]["body"].startswith(b"net.core.somaxconn = ")
        beats = wait_until(lambda: server.heartbeats, 10, "heartbeat")
        assert set(beats[-1]) == {"agent_id", "spool_bytes", "spool_batches", "dropped_lines", "rejected_batches",
                                  "cpu_pct", "rss_kb", "clock_offset_s", "clock_error_s"}
        assert 0 < beats[-1]["rss_kb"] < 60_000 and abs(beats[-1]["clock_offset_s"]) < 1
    finally:
        assert daemon.stop() == 0
    assert "Traceback" not in daemon.stderr()


def test_sigkill_with_the_server_down_then_restart_delivers_every_line_exactly_once(
        server: FakeServer, tmp_path: Path) -> None:
    state = tmp_path / "state"
    run_id = server.create_run()
    daemon = start_daemon(server.url, server.token, state, "--collect", "vmstat")
    wait_until(lambda: len(server.lines(run_id, "vmstat")) >= 3, 20, "first samples")
    # The backend goes away: connections are dropped, nothing is acknowledged.
    server.fail(path="/", close=True)
    wait_until(lambda: len(_spooled_lines(state)) >= 4, 20, "samples spooled during the outage")
    tools = daemon.children()
    daemon.kill()
    wait_until(lambda: not any(_alive(pid) for pid in tools), 10, "vmstat to die with the agent")
    spooled = _spooled_lines(state)
    assert spooled, "the outage left batches in the spool"

    server.clear_faults()
    restarted = start_daemon(server.url, server.token, state, "--collect", "vmstat", log_dir=tmp_path / "second")
    try:
        received = lambda: {(line[0], line[2]) for line in server.lines(run_id, "vmstat")}
        wait_until(lambda: spooled <= received(), 30, "the spool replayed")
        # The run goes on: the restarted daemon resumes the same stream (same seqs, no restart at 1).
        count = len(server.lines(run_id, "vmstat"))
        wait_until(lambda: len(server.lines(run_id, "vmstat")) > count + 2, 20, "resumed sampling")
        server.end_run(run_id)
        wait_until(lambda: server.stream_closed(run_id, "vmstat"), 20, "closed stream")
    finally:
        restarted.stop()
    lines = server.lines(run_id, "vmstat")
    keys = [(line[0], line[2]) for line in lines]
    assert len(keys) == len(set(keys)), "no line twice"
    assert spooled <= set(keys)
    seqs = [b["seq"] for b in server.batches(run_id, "vmstat")]
    assert seqs == list(range(1, len(seqs) + 1)), "seq 1..N, none missing"
    assert server.batches(run_id, "vmstat")[-1]["closed"]
    assert all(b["dropped"] == 0 for b in server.batches(run_id, "vmstat"))


def test_five_seconds_of_latency_per_request_does_not_stall_sampling(server: FakeServer, tmp_path: Path) -> None:
    run_id = server.create_run()
    daemon = start_daemon(server.url, server.token, tmp_path / "state", "--collect", "vmstat")
    try:
        wait_until(lambda: len(server.lines(run_id, "vmstat")) >= 3, 20, "first samples")
        server.latency = 5.0
        slow_from = time.time()
        time.sleep(12)
        slow_until = time.time()
        server.latency = 0.0
        server.end_run(run_id)
        wait_until(lambda: server.stream_closed(run_id, "vmstat"), 40, "backlog drained")
    finally:
        daemon.stop()
    rows = [r for r in _vmstat_rows(server.lines(run_id, "vmstat")) if slow_from <= r[0] <= slow_until]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(rows)]
    # A sampler waiting on the sender would leave 5 s holes; on time, lines come once a second.
    assert len(rows) >= 10 and max(gaps) < 2.0 and 0.85 < sum(gaps) / len(gaps) < 1.15, gaps
    assert all(beat["rss_kb"] < 60_000 for beat in server.heartbeats)
    # Latency is not clock skew: the offset comes from the fastest round trip, with its error bar.
    beats = [b for b in server.heartbeats if b.get("clock_offset_s") is not None]
    assert beats and all(abs(b["clock_offset_s"]) - b["clock_error_s"] <= 1.0 for b in beats), beats[-3:]
    seqs = [b["seq"] for b in server.batches(run_id, "vmstat")]
    assert seqs == list(range(1, len(seqs) + 1))


def test_daemon_test_prints_what_it_would_send_and_sends_nothing(server: FakeServer, tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text("worker_processes 2;\n")
    result = run_agent(server.url, server.token, "daemon", "--test", "--state-dir", str(tmp_path / "state"),
                       "--role", "proxy", "--collect", "vmstat", "--config-file", str(conf),
                       "--sysctl", "net.core.somaxconn")
    assert result.returncode == 0, result.stderr
    docs = {doc["would_send"]: doc for doc in json_documents(result.stdout)}
    assert set(docs) == {"POST /api/agent/hello", "POST /api/ingest/batches", "POST /api/agent/heartbeat",
                         "POST /api/agent/runs/RUN_ID/artifacts"}
    assert docs["POST /api/agent/hello"]["body"]["capabilities"] == {"vmstat": {"available": True}}
    [batch] = docs["POST /api/ingest/batches"]["body"]["batches"]
    assert batch["stream"] == "vmstat" and batch["role"] == "proxy" and batch["closed"]
    assert len(_vmstat_rows(batch["lines"])) >= 2
    assert "nothing was sent" in result.stderr
    assert server.requests == []
    assert not (tmp_path / "state").exists(), "a dry run writes nothing either"
    assert server.token not in result.stdout + result.stderr


def test_a_daemon_restarted_mid_run_resumes_it_and_closes_a_run_that_ended_meanwhile(
        server: FakeServer, tmp_path: Path) -> None:
    state = tmp_path / "state"
    going_on, ending = server.create_run(), server.create_run()
    daemon = start_daemon(server.url, server.token, state, "--collect", "vmstat")
    wait_until(lambda: server.lines(going_on, "vmstat") and server.lines(ending, "vmstat"), 20, "samples")
    # A graceful stop (systemd restart) keeps streams open: they are resumed, not cut short.
    assert daemon.stop() == 0
    assert not server.stream_closed(going_on, "vmstat") and not server.stream_closed(ending, "vmstat")
    server.end_run(ending)
    restarted = start_daemon(server.url, server.token, state, "--collect", "vmstat", log_dir=tmp_path / "second")
    try:
        wait_until(lambda: server.stream_closed(ending, "vmstat"), 20, "the ended run's stream closed")
        assert server.batches(ending, "vmstat")[-1]["error"] == "the agent was not running when the run ended"
        count = len(server.lines(going_on, "vmstat"))
        wait_until(lambda: len(server.lines(going_on, "vmstat")) > count + 1, 20, "resumed sampling")
        server.end_run(going_on)
        wait_until(lambda: server.stream_closed(going_on, "vmstat"), 20, "closed")
    finally:
        assert restarted.stop() == 0
    for run_id in (going_on, ending):
        seqs = [b["seq"] for b in server.batches(run_id, "vmstat")]
        assert seqs == list(range(1, len(seqs) + 1))
    assert len(server.joined(going_on)) == 1
