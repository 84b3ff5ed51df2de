"""A poison batch is refused once and the stream keeps flowing past its seq (issue 9)."""

from __future__ import annotations

import json
import math
import time
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import wait_parsed
from tests.ingest.test_ingest import AGENT, CAPTURE, Agent, _batches, _lines, _run


def test_a_vmstat_batch_with_nan_timestamps_is_a_422_and_later_seqs_still_parse(
    app: Any, client: TestClient, agent_token: str
) -> None:
    agent = Agent(app, agent_token)
    assert agent.hello().status_code == 200
    run_id = _run(agent)
    assert agent.c.post(f"/api/agent/runs/{run_id}/join",
                        json={"agent_id": AGENT, "role": "proxy", "streams": ["vmstat"]}).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()}).status_code == 200
    batches = _batches("vmstat", "vmstat", "proxy", run_id, _lines(CAPTURE / "default" / "run1" / "vmstat.txt",
                                                                    time.time()), 3)
    assert len(batches) >= 4
    first, poison, rest = batches[0], batches[1], batches[2:]
    assert agent.send([first]).status_code == 200
    poisoned = dict(poison, lines=[[math.nan, line[1], line[2]] for line in poison["lines"]])
    body = json.dumps({"agent_id": AGENT, "batches": [poisoned]})  # json.dumps writes NaN, as a buggy agent would
    for _ in range(3):  # the same answer on every retry: nothing to gain by retrying
        r = agent.c.post("/api/ingest/batches", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 422 and "lines" in r.text, r.text
    # What the agent does next (spool.reject): the seq again, empty, with the count of refused lines.
    stand_in = dict(poison, lines=[], refused_lines=len(poison["lines"]))
    assert agent.send([stand_in, *rest]).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).status_code == 200
    wait_parsed(run_id)

    detail = client.get(f"/api/runs/{run_id}").json()
    vmstat = next(s for s in detail["streams"] if s["name"] == "vmstat")
    assert vmstat["state"] == "closed", vmstat
    assert detail["status"] == "partial"
    assert any(f"{len(poison['lines'])} lines refused by the server" in r for r in detail["status_reasons"])
    series = client.get(f"/api/runs/{run_id}/series").json()
    sy = next(s for s in series if s["key"] == "sy")
    # Every data row except the refused batch's (and vmstat's since-boot row) became a sample.
    sent_rows = [ln for b in [first, *rest] for _, _, ln in b["lines"] if ln.strip()[:1].isdigit()]
    assert sy["points"] == len(sent_rows) - 1


def test_lines_dropped_by_a_full_agent_spool_reach_the_run_page(app: Any, client: TestClient,
                                                                 agent_token: str) -> None:
    """RELIABILITY 21: the agent's `dropped` counter arrives, is kept as the stream's, and marks the run."""
    agent = Agent(app, agent_token)
    assert agent.hello().status_code == 200
    run_id = _run(agent)
    assert agent.c.post(f"/api/agent/runs/{run_id}/join",
                        json={"agent_id": AGENT, "role": "proxy", "streams": ["vmstat"]}).status_code == 200
    batches = _batches("vmstat", "vmstat", "proxy", run_id, _lines(CAPTURE / "default" / "run1" / "vmstat.txt",
                                                                    time.time()), 3)
    # The counter is cumulative: later batches carry the total so far, reordering must not lower it.
    for n, batch in enumerate(batches):
        batch["dropped"] = min(n * 7, 21)
    assert agent.send(list(reversed(batches))).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).status_code == 200
    wait_parsed(run_id)
    detail = client.get(f"/api/runs/{run_id}").json()
    vmstat = next(s for s in detail["streams"] if s["name"] == "vmstat")
    assert vmstat["dropped"] == 21
    assert detail["status"] == "partial"
    assert "proxy/vmstat: 21 lines dropped by the agent's full spool" in detail["status_reasons"]
