"""Clock skew is judged against the agent's error bar: latency is not a wrong clock (issue 9)."""

from __future__ import annotations

import time
from typing import Any

from fastapi.testclient import TestClient

from tests.ingest.test_ingest import AGENT, Agent, _run


def _finished_run_after_heartbeat(agent: Agent, offset: float, error: float | None) -> str:
    beat: dict[str, Any] = {"agent_id": AGENT, "clock_offset_s": offset}
    if error is not None:
        beat["clock_error_s"] = error
    assert agent.c.post("/api/agent/heartbeat", json=beat).status_code == 200
    run_id = _run(agent)
    assert agent.c.post(f"/api/agent/runs/{run_id}/join", json={"agent_id": AGENT, "role": "proxy"}).is_success
    assert agent.c.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()}).is_success
    assert agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).is_success
    return run_id


def test_an_offset_within_the_round_trip_error_is_not_skew(app: Any, client: TestClient, agent_token: str) -> None:
    agent = Agent(app, agent_token)
    assert agent.hello().status_code == 200
    slow = _finished_run_after_heartbeat(agent, offset=2.5, error=2.5)  # 5 s round trips, clocks in step
    assert client.get(f"/api/runs/{slow}").json()["status"] == "complete"
    skewed = _finished_run_after_heartbeat(agent, offset=3.0, error=0.01)
    detail = client.get(f"/api/runs/{skewed}").json()
    assert detail["status"] == "partial"
    assert any("clock differs from the server by +3.00 s" in r for r in detail["status_reasons"])
    # An older agent that sends no error bar is judged on its offset alone, as before.
    old = _finished_run_after_heartbeat(agent, offset=1.5, error=None)
    assert client.get(f"/api/runs/{old}").json()["status"] == "partial"
