"""A raw token in run metadata is redacted by the server too, whatever client sent it (issue 9)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text


def test_a_token_in_the_load_command_or_label_is_never_stored(
    app: Any, client: TestClient, agent_token: str, session: Any
) -> None:
    raw = TestClient(app, headers={"Authorization": f"Bearer {agent_token}"})  # not the agent: no client redaction
    run_id = str(uuid.uuid4())
    share_like = "pls_" + "A1b2" * 11
    r = raw.post("/api/agent/runs", json={
        "run_id": run_id, "experiment": "e", "wait_for_roles": [], "label": f"run with {share_like}",
        "load_command": f"curl -H 'Authorization: Bearer {agent_token}' http://127.0.0.1/ && wrk -c 10 http://x/"})
    assert r.status_code == 201, r.text
    detail = client.get(f"/api/runs/{run_id}").json()
    assert detail["load_command"] == "curl -H 'Authorization: Bearer [REDACTED]' http://127.0.0.1/ && wrk -c 10 http://x/"
    assert detail["label"] == "run with [REDACTED]"
    stored = session.execute(text("SELECT load_command || label FROM run WHERE id = :r"), {"r": run_id}).scalar()
    assert agent_token not in stored and share_like not in stored
    # Words that merely start like a token are left alone.
    other = str(uuid.uuid4())
    assert raw.post("/api/agent/runs", json={"run_id": other, "experiment": "e", "wait_for_roles": [],
                                             "load_command": "echo plb_short pls_"}).status_code == 201
    assert client.get(f"/api/runs/{other}").json()["load_command"] == "echo plb_short pls_"


def test_glued_and_url_encoded_tokens_and_the_hypothesis_are_redacted(
    app: Any, client: TestClient, agent_token: str, session: Any
) -> None:
    raw = TestClient(app, headers={"Authorization": f"Bearer {agent_token}"})
    run_id = str(uuid.uuid4())
    encoded = agent_token.replace("_", "%5F").replace("-", "%2D")
    r = raw.post("/api/agent/runs", json={
        "run_id": run_id, "experiment": "fresh", "wait_for_roles": [], "label": f"X_{agent_token}",
        "hypothesis": f"why: PERFLAB_TOKEN={agent_token} and ?t={encoded}",
        "load_command": f"curl -d token={encoded} http://127.0.0.1/"})
    assert r.status_code == 201, r.text
    detail = client.get(f"/api/runs/{run_id}").json()
    assert detail["label"] == "X_[REDACTED]"
    assert detail["load_command"] == "curl -d token=[REDACTED] http://127.0.0.1/"
    stored = session.execute(text("SELECT e.hypothesis FROM experiment e JOIN run r ON r.experiment_id = e.id"
                                  " WHERE r.id = :r"), {"r": run_id}).scalar()
    assert stored == "why: PERFLAB_TOKEN=[REDACTED] and ?t=[REDACTED]"
