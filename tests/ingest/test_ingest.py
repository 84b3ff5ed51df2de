"""Ingest through the agent protocol: raw first, ack after commit, dedup on seq, in-order parsing."""

from __future__ import annotations

import gzip
import json
import math
import random
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from perflab.series.service import read_points
from sqlalchemy import text

from tests.conftest import FIXTURES, wait_parsed

CAPTURE = FIXTURES / "captures" / "nginx-proxy-buffers"
AGENT = "agent-proxy-0001"


def _lines(path: Any, start: float) -> list[list[Any]]:
    return [[start + i * 0.25, 1000.0 + i * 0.25, line] for i, line in enumerate(path.read_text().splitlines())]


def _batches(name: str, source: str, role: str, run_id: str, lines: list[list[Any]], size: int) -> list[dict[str, Any]]:
    out = []
    for seq, i in enumerate(range(0, len(lines), size), start=1):
        out.append({"run_id": run_id, "stream": name, "source": source, "role": role, "seq": seq,
                    "lines": lines[i:i + size], "dropped": 0, "closed": False})
    out[-1]["closed"] = True
    return out


class Agent:
    def __init__(self, app: Any, token: str, agent_id: str = AGENT, role: str = "proxy") -> None:
        self.c = TestClient(app)
        self.c.headers["Authorization"] = f"Bearer {token}"
        self.agent_id = agent_id
        self.role = role

    def hello(self) -> Any:
        return self.c.post("/api/agent/hello", json={
            "agent_id": self.agent_id, "hostname": f"{self.role}-1", "role": self.role, "version": "0.1.0",
            "facts": {"kernel": "6.1.0", "cpus_online": 2}, "capabilities": {"vmstat": {"available": True}},
            "collectors": ["vmstat", "pidstat:nginx"]})

    def send(self, batches: list[dict[str, Any]], gz: bool = False) -> Any:
        body = json.dumps({"agent_id": self.agent_id, "batches": batches}).encode()
        headers = {"Content-Type": "application/json"}
        if gz:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        return self.c.post("/api/ingest/batches", content=body, headers=headers)


def _run(agent: Agent, experiment: str = "default", roles: list[str] | None = None) -> str:
    run_id = str(uuid.uuid4())
    r = agent.c.post("/api/agent/runs", json={"run_id": run_id, "experiment": experiment,
                                              "load_command": "wrk -c 100 -t 2 -d 10s --latency http://127.0.0.1/",
                                              "wait_for_roles": roles if roles is not None else ["proxy"]})
    assert r.status_code == 201, r.text
    return run_id


def _values(session: Any, run_id: str) -> list[float]:
    """Every stored sample value of the run, decoded from its series chunks."""
    sids = session.execute(text("SELECT id FROM series WHERE run_id = :r"), {"r": run_id}).scalars().all()
    points = read_points(session, [(uuid.UUID(run_id), sid) for sid in sids])
    return [v for _, values in points.values() for v in values]


def _state(session: Any, run_id: str) -> dict[str, Any]:
    q = lambda sql: session.execute(text(sql), {"r": run_id}).scalar()
    values = _values(session, run_id)
    return {
        "chunks": q("SELECT count(*) FROM raw_chunk WHERE run_id = :r"),
        "samples": len(values),
        "sum": round(math.fsum(values), 3),
        "series": q("SELECT count(*) FROM series WHERE run_id = :r"),
        "lines": q("SELECT sum(lines) FROM stream WHERE run_id = :r"),
        "summaries": q("SELECT count(*) FROM summary WHERE run_id = :r"),
    }


def test_a_run_streams_parses_and_completes(app: Any, client: TestClient, agent_token: str, session: Any) -> None:
    agent = Agent(app, agent_token)
    assert agent.hello().status_code == 200
    run_id = _run(agent)
    # Creating the same run again is harmless: the client generated the id.
    again = agent.c.post("/api/agent/runs", json={"run_id": run_id, "experiment": "default"})
    assert again.status_code == 200 and again.json()["run_id"] == run_id
    assert agent.c.post(f"/api/agent/runs/{run_id}/join",
                        json={"agent_id": AGENT, "role": "proxy", "streams": ["vmstat"]}).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()}).status_code == 200
    t0 = time.time()
    run1 = CAPTURE / "default" / "run1"
    batches = (_batches("vmstat", "vmstat", "proxy", run_id, _lines(run1 / "vmstat.txt", t0), 3)
               + _batches("load", "wrk", "loadgen", run_id, _lines(run1 / "wrk.txt", t0), 50))
    r = agent.send(batches, gz=True)
    assert r.status_code == 200, r.text
    assert all(not a["duplicate"] for a in r.json()["acked"])
    assert agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).status_code == 200
    wait_parsed(run_id)

    detail = client.get(f"/api/runs/{run_id}").json()
    assert detail["status"] == "complete", detail["status_reasons"]
    wrk = next(s for s in detail["summaries"] if s["kind"] == "wrk")
    expected_rps = float(next(line.split()[1] for line in (run1 / "wrk.txt").read_text().splitlines()
                              if line.startswith("Requests/sec:")))
    assert wrk["data"]["requests_per_sec"] == expected_rps
    assert detail["headline"]["requests_per_sec"] == expected_rps
    vmstat_stream = next(s for s in detail["streams"] if s["name"] == "vmstat")
    data_rows = [ln for ln in (run1 / "vmstat.txt").read_text().splitlines() if ln.strip()[:1].isdigit()]
    assert vmstat_stream["lines"] == len((run1 / "vmstat.txt").read_text().splitlines())
    series = client.get(f"/api/runs/{run_id}/series").json()
    sy = next(s for s in series if s["key"] == "sy")
    # The first row is "since boot", not part of the run.
    assert sy["points"] == len(data_rows) - 1
    assert sy["stats"]["mean"] is not None
    data = client.get(f"/api/runs/{run_id}/series/data", params={"ids": [sy["id"]], "max_points": 10}).json()
    assert len(data["series"][0]["v"]) <= 10 and data["series"][0]["downsampled"] is True


def test_the_same_batches_sent_five_times_reordered_leave_the_state_of_once(
    app: Any, agent_token: str, session: Any
) -> None:
    agent = Agent(app, agent_token)
    agent.hello()
    t0 = time.time()
    vm = CAPTURE / "buffers-4x128k" / "run2" / "vmstat.txt"
    once, many = _run(agent), _run(agent)
    assert agent.send(_batches("vmstat", "vmstat", "proxy", once, _lines(vm, t0), 2)).status_code == 200
    batches = _batches("vmstat", "vmstat", "proxy", many, _lines(vm, t0), 2) * 5
    random.Random(7).shuffle(batches)
    dup = 0
    for i in range(0, len(batches), 4):
        r = agent.send(batches[i:i + 4])
        assert r.status_code == 200
        dup += sum(a["duplicate"] for a in r.json()["acked"])
    wait_parsed(once)
    wait_parsed(many)
    session.commit()
    assert dup == len(batches) * 4 // 5
    assert _state(session, many) == _state(session, once)


def test_a_batch_that_arrives_early_is_parsed_when_the_gap_fills(app: Any, agent_token: str, session: Any) -> None:
    agent = Agent(app, agent_token)
    agent.hello()
    run_id = _run(agent)
    vm = CAPTURE / "direct" / "run1" / "vmstat.txt"
    b = _batches("vmstat", "vmstat", "proxy", run_id, _lines(vm, time.time()), 4)
    agent.send(b[2:])
    wait_parsed(run_id)  # nothing to parse: chunk 1 is missing
    session.commit()
    assert _state(session, run_id)["samples"] == 0
    agent.send(b[:2])
    wait_parsed(run_id)
    session.commit()
    assert _state(session, run_id)["samples"] > 0
    before = _state(session, run_id)
    from perflab.db import unit_of_work
    from perflab.ingest import service
    from perflab.runs.models import Run

    with unit_of_work() as s:
        service.reparse_run(s, run=s.get(Run, uuid.UUID(run_id)))
    session.commit()
    assert _state(session, run_id) == before


def test_malformed_and_oversized_batches_get_4xx_not_500(app: Any, agent_token: str) -> None:
    agent = Agent(app, agent_token)
    agent.hello()
    run_id = _run(agent)
    r = agent.send([{"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 0,
                     "lines": []}])
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "seq"
    r = agent.c.post("/api/ingest/batches", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 422
    r = agent.send([{"run_id": str(uuid.uuid4()), "stream": "vmstat", "source": "vmstat", "role": "proxy",
                     "seq": 1, "lines": []}])
    assert r.status_code == 404
    big = "x" * 1000
    lines = [[0.0, 0.0, big]] * 20000
    r = agent.send([{"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 1,
                     "lines": lines}])
    assert r.status_code == 413


def test_a_role_that_never_joins_makes_the_run_partial_with_the_reason(
    app: Any, client: TestClient, agent_token: str
) -> None:
    agent = Agent(app, agent_token, role="loadgen", agent_id="agent-loadgen-01")
    agent.hello()
    run_id = _run(agent, roles=["proxy", "upstream"])
    agent.c.post(f"/api/agent/runs/{run_id}/start", json={})
    wrk = CAPTURE / "direct" / "run1" / "wrk.txt"
    agent.send(_batches("load", "wrk", "loadgen", run_id, _lines(wrk, time.time()), 100))
    agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0})
    wait_parsed(run_id)
    detail = client.get(f"/api/runs/{run_id}").json()
    assert detail["status"] == "partial"
    assert "no host with role proxy joined the run" in detail["status_reasons"]
    assert "no host with role upstream joined the run" in detail["status_reasons"]
    status = agent.c.get(f"/api/agent/runs/{run_id}").json()
    assert status["missing_roles"] == ["proxy", "upstream"]


def test_a_token_cannot_ingest_into_another_projects_run(app: Any, client: TestClient, agent_token: str) -> None:
    other = client.post("/api/projects", json={"name": "other"}).json()
    other_token = client.post(f"/api/projects/{other['slug']}/tokens", json={}).json()["token"]
    victim = Agent(app, agent_token)
    victim.hello()
    run_id = _run(victim)
    attacker = Agent(app, other_token, agent_id="agent-attacker-1")
    attacker.hello()
    r = attacker.send([{"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 1,
                        "lines": [[0, 0, "x"]]}])
    assert r.status_code == 404
    assert client.get(f"/api/runs/{run_id}").json()["streams"] == []  # nor was a stream made in it
    read_only = client.post(f"/api/projects/{other['slug']}/tokens", json={"scopes": ["read"]}).json()["token"]
    ro = Agent(app, read_only, agent_id="agent-readonly-1")
    assert ro.hello().status_code == 403


def test_poll_tells_a_daemon_about_waiting_and_ended_runs(app: Any, agent_token: str) -> None:
    proxy = Agent(app, agent_token)
    proxy.hello()
    r = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 0})
    assert r.json()["runs"] == []
    run_id = _run(proxy)
    runs = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 5}).json()["runs"]
    assert runs[0]["run_id"] == run_id and runs[0]["state"] == "waiting"
    proxy.c.post(f"/api/agent/runs/{run_id}/join",
                 json={"agent_id": AGENT, "role": "proxy", "streams": ["vmstat", "strace-c:nginx"]})
    proxy.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0})
    runs = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 0}).json()["runs"]
    assert runs[0]["state"] == "ended"
    # The run waits for the daemon's declared streams, even those that never sent a line yet.
    assert proxy.c.get(f"/api/agent/runs/{run_id}").json()["status"] == "running"
    for name, source in (("vmstat", "vmstat"), ("strace-c:nginx", "strace-c")):
        proxy.send([{"run_id": run_id, "stream": name, "source": source, "role": "proxy", "seq": 1,
                     "lines": [], "closed": True}])
    wait_parsed(run_id)
    assert proxy.c.get(f"/api/agent/runs/{run_id}").json()["status"] in ("complete", "partial")
    assert proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 0}).json()["runs"] == []




def test_refreshing_a_hosts_last_seen_does_not_hold_up_a_join_of_that_host(app: Any, agent_token: str,
                                                                          db_engine: Any) -> None:
    """The refresh only changes a timestamp: it must lock the host row FOR NO KEY UPDATE. FOR UPDATE also
    blocks every insert that references the host (run_host, stream), so each of 70 joins waited for the
    transaction that happened to refresh last_seen_at."""
    from perflab.db import new_session
    from perflab.hosts.service import mark_seen
    from perflab.runs.models import RunHost

    proxy = Agent(app, agent_token)
    host_id = proxy.hello().json()["host_id"]
    run_id = _run(proxy)
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE host SET last_seen_at = now() - interval '1 hour' WHERE id = :id"), {"id": host_id})
    refreshing = new_session()
    joining = new_session()
    try:
        mark_seen(refreshing, host_id=host_id)  # and its transaction stays open, as a busy request's would
        joining.execute(text("SET LOCAL lock_timeout = '2s'"))
        joining.add(RunHost(run_id=uuid.UUID(run_id), host_id=host_id, role="proxy", state="collecting",
                            joined_at=datetime.now(UTC)))
        joining.flush()  # before: LockNotAvailable after 2 s
        joining.commit()
        refreshing.commit()
    finally:
        joining.close()
        refreshing.close()
    seen = proxy.c.get(f"/api/agent/runs/{run_id}").json()
    assert seen["missing_roles"] == [] and seen["hosts"][0]["state"] == "collecting"


def test_poll_holds_its_answer_while_nothing_changed_for_the_daemon(app: Any, agent_token: str) -> None:
    proxy = Agent(app, agent_token)
    proxy.hello()
    run_id = _run(proxy)
    first = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 5}).json()["runs"]
    known = ",".join(f"{r['run_id']}:{r['state']}" for r in first)
    t0 = time.monotonic()
    same = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 2, "known": known}).json()["runs"]
    assert time.monotonic() - t0 >= 1.5 and same == first
    proxy.c.post(f"/api/agent/runs/{run_id}/start", json={})
    t0 = time.monotonic()
    changed = proxy.c.get("/api/agent/poll", params={"agent_id": AGENT, "timeout": 5, "known": known}).json()["runs"]
    assert time.monotonic() - t0 < 2 and changed[0]["state"] == "running"


def test_a_batch_split_in_parts_is_stored_once_all_parts_arrived(app: Any, agent_token: str, session: Any) -> None:
    agent = Agent(app, agent_token)
    agent.hello()
    whole_run, parts_run = _run(agent), _run(agent)
    vm = CAPTURE / "default" / "run2" / "vmstat.txt"
    lines = _lines(vm, time.time())
    whole = _batches("vmstat", "vmstat", "proxy", whole_run, lines, len(lines))
    agent.send(whole)
    third = len(lines) // 3 + 1
    parts = [{"run_id": parts_run, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 1,
              "lines": lines[i * third:(i + 1) * third], "closed": i == 2, "part": i, "parts": 3} for i in range(3)]
    assert agent.send([parts[2]]).status_code == 200
    assert agent.send([parts[0], parts[2]]).status_code == 200  # a part sent twice is harmless
    session.commit()
    assert _state(session, parts_run)["chunks"] == 0
    agent.send([parts[1]])
    wait_parsed(whole_run)
    wait_parsed(parts_run)
    session.commit()
    assert _state(session, parts_run) == _state(session, whole_run)
    r = agent.send([{**parts[0], "part": 3}])
    assert r.status_code == 422


def test_the_tail_of_a_stream_shows_its_newest_raw_lines(app: Any, client: TestClient, agent_token: str) -> None:
    agent = Agent(app, agent_token)
    agent.hello()
    run_id = _run(agent)
    wrk = (CAPTURE / "default" / "run3" / "wrk.txt").read_text().splitlines()
    agent.send(_batches("load", "wrk", "loadgen", run_id, _lines(CAPTURE / "default" / "run3" / "wrk.txt",
                                                                  time.time()), 3))
    stream = next(s for s in client.get(f"/api/runs/{run_id}").json()["streams"] if s["name"] == "load")
    tail = client.get(f"/api/runs/{run_id}/streams/{stream['id']}/tail", params={"lines": 4}).json()
    assert [line["text"] for line in tail["lines"]] == wrk[-4:] and tail["total_lines"] == len(wrk)
    assert client.get(f"/api/runs/{run_id}/streams/999999/tail").status_code == 404
    assert client.get(f"/api/runs/{run_id}/streams/{stream['id']}/tail", params={"lines": 0}).status_code == 400


def test_a_streams_first_batch_makes_it_with_that_batch_counted(
    app: Any, client: TestClient, agent_token: str, session: Any
) -> None:
    """The first batch creates its stream in the statement that stores it: the row must read as if the
    stream had existed and taken the batch (counters, closing seq, the agent's error, its host)."""
    agent = Agent(app, agent_token)
    agent.hello()
    run_id = _run(agent)
    r = agent.send([{"run_id": run_id, "stream": "netqtop:eth0", "source": "netqtop", "role": "proxy", "seq": 3,
                     "lines": [[1.0, 2.0, "a"], [1.5, 2.5, "b"]], "dropped": 7, "refused_lines": 2,
                     "closed": True, "error": "netqtop exited with status 1"},
                    {"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 1,
                     "lines": [[1.0, 2.0, "procs"]]}])
    assert r.status_code == 200 and [a["duplicate"] for a in r.json()["acked"]] == [False, False]
    rows = session.execute(text(
        "SELECT s.name, s.role, s.source, s.lines, s.chunks, s.max_seq, s.dropped, s.refused, s.closed_seq,"
        " s.state, s.error, h.agent_id FROM stream s LEFT JOIN host h ON h.id = s.host_id"
        " WHERE s.run_id = :r ORDER BY s.name"), {"r": run_id}).all()
    session.commit()
    assert [tuple(row) for row in rows] == [
        ("netqtop:eth0", "proxy", "netqtop", 2, 1, 3, 7, 2, 3, "failed", "netqtop exited with status 1", AGENT),
        ("vmstat", "proxy", "vmstat", 1, 1, 1, 0, 0, None, "open", None, AGENT),
    ]
    # Sent again (a retry after a lost answer): a duplicate, nothing counted twice.
    again = agent.send([{"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": 1,
                         "lines": [[1.0, 2.0, "procs"]]}])
    assert again.json()["acked"][0]["duplicate"] is True
    lines = session.execute(text("SELECT lines, chunks FROM stream WHERE run_id = :r AND name = 'vmstat'"),
                            {"r": run_id}).one()
    session.commit()
    assert tuple(lines) == (1, 1)
