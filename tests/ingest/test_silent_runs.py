"""A run whose `perflab-agent run` was SIGKILLed ends `partial` after PERFLAB_RUN_SILENCE_S (issue 9)."""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import login, make_user
from tests.ingest.test_ingest import AGENT, CAPTURE, _batches, _lines


@pytest.fixture
def quick_sweep_app(db_engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from perflab.config import get_settings
    from perflab.main import create_app

    monkeypatch.setenv("PERFLAB_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PERFLAB_RUN_SILENCE_S", "2")
    get_settings.cache_clear()
    yield create_app()
    get_settings.cache_clear()


def test_a_run_silent_past_the_setting_ends_partial_with_the_reason(quick_sweep_app: Any) -> None:
    make_user()
    with TestClient(quick_sweep_app) as ui:  # entering runs the lifespan, which starts the sweep
        login(ui)
        slug = ui.post("/api/projects", json={"name": "silence"}).json()["slug"]
        token = ui.post(f"/api/projects/{slug}/tokens", json={"name": "t"}).json()["token"]
        agent = TestClient(quick_sweep_app, headers={"Authorization": f"Bearer {token}"})
        assert agent.post("/api/agent/hello", json={"agent_id": AGENT, "hostname": "p", "role": "proxy"}).is_success
        killed, alive = str(uuid.uuid4()), str(uuid.uuid4())
        for run_id in (killed, alive):
            assert agent.post("/api/agent/runs", json={"run_id": run_id, "experiment": "e",
                                                       "wait_for_roles": []}).status_code == 201
            assert agent.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()}).is_success
        lines = _lines(CAPTURE / "default" / "run1" / "vmstat.txt", time.time())
        feed = _batches("vmstat", "vmstat", "proxy", alive, lines, 1)
        # `killed` hears nothing more; `alive` gets a line every half second for 5 s.
        deadline = time.monotonic() + 5
        for batch in feed:
            if time.monotonic() > deadline:
                break
            batch["closed"] = False
            assert agent.post("/api/ingest/batches", json={"agent_id": AGENT, "batches": [batch]}).is_success
            time.sleep(0.5)
        dead = ui.get(f"/api/runs/{killed}").json()
        live = ui.get(f"/api/runs/{alive}").json()
    assert dead["status"] == "partial", dead
    assert any("no line from any agent for 2 s" in r for r in dead["status_reasons"]), dead["status_reasons"]
    assert dead["ended_at"] is not None
    assert live["status"] == "running", live["status_reasons"]
