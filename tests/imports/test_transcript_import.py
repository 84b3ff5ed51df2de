"""A terminal session imported as one file (issue 18 item 2): each command's output lands by the kind
its command names, host-fact commands become host-facts summaries, and commands perflab does not
read are listed, not imported, without refusing the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_recorded_session_imports_by_command(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    text = (FIXTURES / "transcripts" / "local_debian_root_prompt.txt").read_text()
    files = [{"name": "session.txt", "content": text, "role": "proxy"}]
    preview = client.post(f"/api/projects/{slug}/imports/preview", json={"files": files})
    assert preview.status_code == 200, preview.text
    parts = preview.json()["files"]
    assert [p["kind"] for p in parts] == ["vmstat"] + ["host-facts"] * 6 + ["sysctl", "ss-s", None, None, None]
    assert all(p["ok"] for p in parts)

    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "session", "files": files})
    assert r.status_code == 201, r.text
    detail = client.get(f"/api/runs/{r.json()['run_id']}").json()
    kinds = [s["kind"] for s in detail["summaries"]]
    assert kinds.count("host-facts") == 6 and "sysctl" in kinds and "ss-s" in kinds
    facts = [s["data"]["facts"] for s in detail["summaries"] if s["kind"] == "host-facts"]
    assert {"cpus_allowed": 2} in facts and {"cgroup_cpu_period_us": 100000} in facts
    series = client.get(f"/api/runs/{r.json()['run_id']}/series").json()
    assert any(s["source"] == "vmstat" and s["key"] == "us" for s in series)
