"""A removed member's open live-update stream stops (issue 21): access is checked at every snapshot."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import login, make_user

PASSWORD = "a viewer password 1"


def test_removing_a_member_ends_their_open_run_stream(app: Any, client: TestClient, project: dict[str, Any],
                                                      agent_token: str) -> None:
    slug = project["slug"]
    agent = TestClient(app, headers={"Authorization": f"Bearer {agent_token}"})
    run_id = str(uuid.uuid4())
    r = agent.post("/api/agent/runs", json={"run_id": run_id, "experiment": "live", "wait_for_roles": []})
    assert r.status_code == 201, r.text
    make_user("watcher@example.test", PASSWORD, role="member")
    watcher_id = client.post(f"/api/projects/{slug}/members",
                             json={"email": "watcher@example.test", "role": "viewer"}).json()["user_id"]
    watcher = login(TestClient(app), "watcher@example.test", PASSWORD)
    received: list[str] = []
    ended = threading.Event()

    def watch() -> None:
        # The test client hands the body over once the stream has ended.
        received.append(watcher.get(f"/api/runs/{run_id}/events").text)
        ended.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        time.sleep(1.5)
        assert not ended.is_set(), "the stream of a running run stays open while the member may read it"
        removed = time.monotonic()
        assert client.delete(f"/api/projects/{slug}/members/{watcher_id}").status_code == 204
        assert ended.wait(5), "the removed member's stream was still open 5 s after the removal"
        took = time.monotonic() - removed
    finally:
        # Whatever happened, end the run so that the stream (and its thread) finishes.
        agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0})
        ended.wait(10)
    body = received[0]
    assert body.startswith("event: run") and body.rstrip().endswith('event: end\ndata: {"reason": "access revoked"}')
    assert took < 2.5


def test_open_streams_are_checked_together_not_one_transaction_each(client: TestClient, project: dict[str, Any],
                                                                     agent_token: str) -> None:
    """Twelve callers watching a live run cost one access check a second between them (two queries),
    not a transaction of several reads each: counted in the statements PostgreSQL is sent."""
    from perflab import db
    from sqlalchemy import event

    slug = project["slug"]
    run_id = str(uuid.uuid4())
    r = client.post("/api/agent/runs", json={"run_id": run_id, "experiment": "live", "wait_for_roles": []},
                    headers={"Authorization": f"Bearer {agent_token}"})
    assert r.status_code == 201, r.text
    # Each viewer its own caller (a read-only token), all through the one app loop of `client`.
    viewers = [client.post(f"/api/projects/{slug}/tokens", json={"name": f"viewer {i}", "scopes": ["read"]}).json()["token"]
               for i in range(12)]
    ended: list[str] = []
    threads = [threading.Thread(target=lambda t=token: ended.append(client.get(
        f"/api/runs/{run_id}/events", headers={"Authorization": f"Bearer {t}"}).text), daemon=True) for token in viewers]
    for t in threads:
        t.start()
    checks: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "agent_token" in statement:
            checks.append(statement)

    engine = db.get_engine()
    try:
        time.sleep(1.5)  # every stream open and past its first check
        event.listen(engine, "before_cursor_execute", count)
        time.sleep(3.0)
        event.remove(engine, "before_cursor_execute", count)
        assert not ended, "the streams of a running run stay open"
    finally:
        client.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0},
                    headers={"Authorization": f"Bearer {agent_token}"})
        for t in threads:
            t.join(10)
    # ~3 passes in 3 s (one more when a pass straddles the window's edges); one each would be 36 or more.
    assert 2 <= len(checks) <= 6, len(checks)
    assert len(ended) == len(viewers) and all(body.rstrip().endswith("event: end\ndata: {}") for body in ended)
