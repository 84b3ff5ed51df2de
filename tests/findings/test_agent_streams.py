"""The agent's ss and dmesg streams through the real ingest path: stored raw, parsed into summaries when
they close, read by the findings rules; a quiet kernel log is no error."""

from __future__ import annotations

import time
import uuid
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import wait_parsed

from .helpers import FIXTURES, SCENARIOS

PROXY = {"agent_id": "agent-proxy-findings", "hostname": "proxy-1", "role": "proxy"}


def _ok(r: Any) -> Any:
    assert r.status_code in (200, 201), r.text
    return r.json()


def _lines(text: str, t: float) -> list[list[Any]]:
    return [[t + i * 1e-3, 1000.0 + i * 1e-3, ln] for i, ln in enumerate(text.splitlines())]


def test_ss_and_dmesg_streams_become_summaries_and_findings(
    app: Any, client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    token = _ok(client.post(f"/api/projects/{slug}/tokens", json={"name": "a", "scopes": ["ingest", "read"]}))["token"]
    agent = TestClient(app)
    agent.headers["Authorization"] = f"Bearer {token}"
    _ok(agent.post("/api/agent/hello", json={**PROXY, "version": "0.1.0", "facts": {"cpus_online": 2},
                                             "capabilities": {}, "collectors": ["ss-ltn", "dmesg"]}))
    run_id = str(uuid.uuid4())
    t = time.time() - 60
    _ok(agent.post("/api/agent/runs", json={"run_id": run_id, "experiment": "backlog", "wait_for_roles": ["proxy"]}))
    _ok(agent.post(f"/api/agent/runs/{run_id}/join",
                   json={"agent_id": PROXY["agent_id"], "role": "proxy", "streams": ["ss-ltn", "dmesg", "dmesg2"]}))
    _ok(agent.post(f"/api/agent/runs/{run_id}/start", json={"started_at": t}))
    ss = (SCENARIOS / "listen-backlog" / "ss-ltnp.txt").read_text()
    syn = (FIXTURES / "dmesg" / "netdev_syn_flood_callerid.txt").read_text()
    batches = [
        {"run_id": run_id, "stream": "ss-ltn", "source": "ss-ltn", "role": "proxy", "seq": 1,
         "lines": _lines(ss, t), "dropped": 0, "closed": True},
        {"run_id": run_id, "stream": "dmesg", "source": "dmesg", "role": "proxy", "seq": 1,
         "lines": _lines(syn, t), "dropped": 0, "closed": True},
        # a second kernel log that stayed quiet during the run
        {"run_id": run_id, "stream": "dmesg2", "source": "dmesg", "role": "proxy", "seq": 1,
         "lines": [], "dropped": 0, "closed": True},
    ]
    _ok(agent.post("/api/ingest/batches", json={"agent_id": PROXY["agent_id"], "batches": batches}))
    _ok(agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0, "ended_at": t + 10}))
    wait_parsed(run_id)

    detail = _ok(client.get(f"/api/runs/{run_id}"))
    kinds = sorted(s["kind"] for s in detail["summaries"])
    assert kinds == ["dmesg", "ss-ltn"]
    quiet = next(s for s in detail["streams"] if s["name"] == "dmesg2")
    assert quiet["error"] is None
    f = next(f for f in _ok(client.get(f"/api/runs/{run_id}/findings"))["findings"] if f["rule"] == "listen-overflow")
    assert {e["kind"] for e in f["evidence"]} >= {"listener", "log"}
