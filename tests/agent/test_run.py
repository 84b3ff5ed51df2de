"""`perflab-agent run` (a subprocess on the oldest supported Python) against the fake server: orchestration
with a daemon, human and --json output, spool overflow accounting, and the token kept out of everything."""

from __future__ import annotations

import json
import signal
from functools import partial
from pathlib import Path

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import (
    PY36,
    AgentProcess,
    agent_env,
    run_agent,
    start_daemon,
    wait_until,
)

WRK_OUTPUT = """Running 2s test @ http://127.0.0.1:8080/
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   785.82us  210.54us   4.41ms   84.14%
    Req/Sec     6.41k   412.09     7.08k    75.00%
  25534 requests in 2.00s, 3.01GB read
Requests/sec:  12722.92
Transfer/sec:      1.49GB
"""


def _run_args(tmp_path: Path, *extra: str) -> list[str]:
    return ["run", "--state-dir", str(tmp_path / "loadgen"), "--role", "loadgen", "--project", "demo",
            "--experiment", "proxy_buffers 4 128k", *extra]


def test_run_waits_for_the_daemon_repeats_and_prints_only_json(server: FakeServer, tmp_path: Path) -> None:
    daemon = start_daemon(server.url, server.token, tmp_path / "proxy", "--collect", "vmstat", role="proxy")
    try:
        wait_until(lambda: server.hosts, 20, "daemon hello")
        load = "import time; print('Requests/sec: 1234.50', flush=True); time.sleep(1.5)"
        result = run_agent(server.url, server.token,
                           *_run_args(tmp_path, "--repeat", "2", "--wait-for", "proxy", "--wait-timeout", "30",
                                      "--json", "--", PY36, "-c", load))
        assert result.returncode == 0, result.stderr
        docs = [json.loads(line) for line in result.stdout.splitlines()]
        assert [set(doc) for doc in docs] == [{"run_id", "status"}] * 2
        for index, doc in enumerate(docs, start=1):
            run = server.runs[doc["run_id"]]
            assert run["label"] == f"run {index} of 2" and run["experiment"] == "proxy_buffers 4 128k"
            assert run["created"]["project"] == "demo" and run["created"]["wait_for_roles"] == ["proxy"]
            assert run["exit_code"] == 0
            batches = server.batches(doc["run_id"], "load")
            assert {(b["source"], b["role"]) for b in batches} == {("command", "loadgen")} and batches[-1]["closed"]
            assert [line[2] for line in server.lines(doc["run_id"], "load")] == ["Requests/sec: 1234.50"]
            # The daemon joined before the load started and closed its stream after it ended.
            assert list(server.joined(doc["run_id"])) == list(server.hosts)
            wait_until(partial(server.stream_closed, doc["run_id"], "vmstat"), 20, "daemon closed vmstat")
            assert server.lines(doc["run_id"], "vmstat")
        starts = [r.at for r in server.recorded("/api/agent/runs/") if r.path.endswith("/start")]
        joins = [r.at for r in server.recorded("/api/agent/runs/") if r.path.endswith("/join")]
        assert all(join < start for join, start in zip(joins, starts))
        assert [doc["status"] for doc in docs] == ["complete", "complete"]
    finally:
        daemon.stop()


def test_run_human_output_for_wrk(server: FakeServer, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "wrk.txt").write_text(WRK_OUTPUT)
    wrk = bin_dir / "wrk"
    wrk.write_text("#!/bin/sh\nhead -2 {}\nsleep 2.5\ntail -n +3 {}\n".format(bin_dir / "wrk.txt", bin_dir / "wrk.txt"))
    wrk.chmod(0o755)
    result = run_agent(server.url, server.token,
                       *_run_args(tmp_path, "--", "wrk", "-c", "10", "-d", "2s", "http://127.0.0.1:8080/"),
                       PATH=f"{bin_dir}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    [run_id] = list(server.runs)
    assert "perflab: running: wrk -c 10 -d 2s http://127.0.0.1:8080/" in out
    assert "elapsed, " in out and " remaining" in out
    assert "12722.92 requests/sec" in out
    assert f"{server.url}/runs/{run_id}" in out
    assert "Requests/sec:  12722.92" in out, "the load's own output is shown as it runs"
    batches = server.batches(run_id, "load")
    assert {b["source"] for b in batches} == {"wrk"}
    assert [line[2] for line in server.lines(run_id, "load")] == WRK_OUTPUT.splitlines()
    first, last = server.lines(run_id, "load")[0], server.lines(run_id, "load")[-1]
    assert last[0] - first[0] > 2, "lines stamped as they arrived (wrk ran under stdbuf -oL)"
    assert server.runs[run_id]["created"]["load_command"] == "wrk -c 10 -d 2s http://127.0.0.1:8080/"


def test_overflow_drops_the_oldest_lines_and_the_count_reaches_the_server(server: FakeServer, tmp_path: Path) -> None:
    # Ingest answers 503 for a while; a 10 KB spool cannot hold the 40 KB printed meanwhile.
    server.fail(503, path="/api/ingest", count=3, retry_after=1)
    load = ("import time\nfor i in range(400):\n    print('line %05d ' % i + 'x' * 80, flush=True)\n"
            "    time.sleep(0.008)\n")
    result = run_agent(server.url, server.token,
                       *_run_args(tmp_path, "--spool-max-mb", "0.01", "--json", "--", PY36, "-c", load))
    assert result.returncode == 0, result.stderr
    [doc] = [json.loads(line) for line in result.stdout.splitlines()]
    batches = server.batches(doc["run_id"], "load")
    assert [b["seq"] for b in batches] == list(range(1, len(batches) + 1)), "no seq missing, dropped ones empty"
    received = [line[2] for line in server.lines(doc["run_id"], "load")]
    dropped = batches[-1]["dropped"]
    assert dropped > 0 and batches[-1]["closed"]
    assert len(received) + dropped == 400
    assert received == [f"line {i:05d} {'x' * 80}" for i in range(dropped, 400)], "the oldest went first"
    assert "dropping the oldest lines of load" in result.stderr


def test_the_token_reaches_no_request_output_or_child(server: FakeServer, tmp_path: Path) -> None:
    script = f"echo \"env token=[$PERFLAB_TOKEN]\"; env | grep -c plb_ ; echo \"argv token={server.token}\""
    result = run_agent(server.url, server.token, *_run_args(tmp_path, "--", "sh", "-c", script))
    assert result.returncode == 0, result.stderr
    [run_id] = list(server.runs)
    texts = [line[2] for line in server.lines(run_id, "load")]
    # Not in the child's environment (0 matches), and redacted where the command line itself carried it.
    assert texts == ["env token=[]", "0", "argv token=[REDACTED]"]
    assert "[REDACTED]" in server.runs[run_id]["created"]["load_command"]
    assert server.token not in result.stdout + result.stderr


def test_a_token_of_another_project_is_refused(server: FakeServer, tmp_path: Path) -> None:
    result = run_agent(server.url, server.token, "run", "--state-dir", str(tmp_path / "s"), "--project", "other",
                       "--experiment", "e", "--", "true")
    assert result.returncode == 2
    assert "belongs to project 'demo', not 'other'" in result.stderr
    assert server.runs == {}


def test_interrupting_the_load_finishes_the_run(server: FakeServer, tmp_path: Path) -> None:
    agent = AgentProcess(_run_args(tmp_path, "--", PY36, "-c", "import time\nprint('started', flush=True)\n"
                                   "time.sleep(60)"), agent_env(server.url, server.token), tmp_path, "run")
    run_id = wait_until(lambda: next(iter(server.runs), None), 20, "run created")
    wait_until(lambda: server.lines(run_id, "load"), 20, "load started")
    agent.proc.send_signal(signal.SIGINT)
    assert agent.wait(30) == 130
    # The load got SIGINT (Python 3.6 exits 1 on KeyboardInterrupt): the run records its real status.
    assert server.runs[run_id]["state"] == "ended" and server.runs[run_id]["exit_code"] in (1, 130)
    assert server.stream_closed(run_id, "load") and server.batches(run_id, "load")[-1]["error"] == "interrupted"


def test_status_table_on_python_3_6_retry_after_413_and_422(server: FakeServer, tmp_path: Path) -> None:
    server.fail(503, path="/api/ingest", count=1, retry_after=2)
    server.max_body = 3000
    server.reject_text = "POISON"
    load = ("import time\nprint('first', flush=True)\ntime.sleep(1.2)\n"
            "for i in range(60):\n    print('burst %02d ' % i + 'y' * 100, flush=True)\n"
            "time.sleep(1.2)\nprint('POISON', flush=True)\ntime.sleep(1.2)\nprint('last', flush=True)\n")
    result = run_agent(server.url, server.token, *_run_args(tmp_path, "--json", "--", PY36, "-c", load))
    assert result.returncode == 0, result.stderr
    [doc] = [json.loads(line) for line in result.stdout.splitlines()]
    received = [line[2] for line in server.lines(doc["run_id"], "load")]
    assert received == ["first"] + [f"burst {i:02d} {'y' * 100}" for i in range(60)] + ["last"]
    attempts = server.recorded("/api/ingest")
    assert attempts[0].status == 503 and attempts[1].at - attempts[0].at >= 1.9, "Retry-After honoured"
    assert any(r.status == 413 for r in attempts), "too large, then split"
    poisoned = [r for r in attempts if b"POISON" in r.body]
    # Requests mixing it with good batches are halved until it is alone; refused alone, it is set aside
    # and never sent again.
    assert poisoned[-1].status == 422 and len(json.loads(poisoned[-1].body)["batches"]) == 1
    rejected = list((tmp_path / "loadgen" / "spool-run" / "rejected").glob("*.json"))
    assert len(rejected) == 1 and "POISON" in rejected[0].read_text()


def test_the_token_never_leaves_in_the_hypothesis_even_url_encoded(server: FakeServer, tmp_path: Path) -> None:
    encoded = server.token.replace("_", "%5F")
    result = run_agent(server.url, server.token,
                       *_run_args(tmp_path, "--hypothesis", f"as in curl -d t={encoded} and {server.token}",
                                  "--", "sh", "-c", f"echo {encoded}"))
    assert result.returncode == 0, result.stderr
    [run_id] = list(server.runs)
    assert server.runs[run_id]["created"]["hypothesis"] == "as in curl -d t=[REDACTED] and [REDACTED]"
    assert [line[2] for line in server.lines(run_id, "load")] == ["[REDACTED]"]


def _verdict_doc(verdict: str) -> dict[str, object]:
    exp = "proxy_buffers 4 128k"
    return {"baseline": "direct", "experiments": ["direct", exp], "metrics": [
        {"key": "wrk.requests_per_sec", "direction": "higher_is_better", "values": {"direct": 12000.0, exp: 9000.0},
         "runs": {"direct": 3, exp: 2}, "delta_pct": {"direct": 0.0, exp: -25.0},
         "verdict": {"direct": "equivalent", exp: verdict}, "undecided_reason": {},
         "detectable_pct": {"direct": 6.0, exp: 31.5}, "runs_needed": {"direct": None, exp: 4}}]}


def test_repeat_auto_runs_until_the_server_decides_or_max(server: FakeServer, tmp_path: Path) -> None:
    load = "print('Requests/sec: 9000.00', flush=True)"
    auto = ["--repeat", "auto", "--against", "direct", "--wait-timeout", "1", "--", PY36, "-c", load]
    # Decided at the first look (after 2 runs): it stops there and says so.
    server.compare_response = _verdict_doc("worse")
    decided = run_agent(server.url, server.token, *_run_args(tmp_path, "--max", "6", *auto))
    assert decided.returncode == 0, decided.stderr
    assert "decided after 2 runs: wrk.requests_per_sec worse (-25.0%) against 'direct'" in decided.stderr + \
        decided.stdout
    assert len(server.runs) == 2
    # Each look names itself and the planned looks, so the server spends the false-positive rate across them.
    assert [(q["look"], q["looks"], q["baseline"], q["experiments"]) for q in server.compare_queries] == [
        (["1"], ["5"], ["direct"], ["proxy_buffers 4 128k"])]
    # Never decided: it stops at --max and says what would decide.
    server.compare_response = _verdict_doc("not_decided")
    server.compare_queries.clear()
    undecided = run_agent(server.url, server.token, *_run_args(tmp_path, "--max", "3", *auto))
    assert undecided.returncode == 0, undecided.stderr
    out = undecided.stderr + undecided.stdout
    assert "not decided after 3 runs (--max 3)" in out and "about 4 more a side would decide" in out
    assert len(server.runs) == 5
    assert [q["look"] for q in server.compare_queries] == [["1"], ["2"]]
    assert sorted(r["label"] for r in list(server.runs.values())[2:]) == ["run 1, auto", "run 2, auto", "run 3, auto"]
    # --repeat auto without a baseline is a usage error.
    bad = run_agent(server.url, server.token, *_run_args(tmp_path, "--repeat", "auto", "--", PY36, "-c", load))
    assert bad.returncode == 2 and "--repeat auto needs --against" in bad.stderr
