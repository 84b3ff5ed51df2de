"""Decisions: pre-filled from the config diff, recorded with the comparison as evidence, shown in history."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation


def _ids(client: TestClient, slug: str) -> dict[str, int]:
    items = client.get(f"/api/projects/{slug}/experiments").json()["items"]
    return {i["name"]: i["id"] for i in items}


def test_prefill_reads_the_knob_from_the_nginx_config_diff(client: TestClient, investigation: Investigation) -> None:
    ids = _ids(client, investigation.slug)
    r = client.get(f"/api/experiments/{ids['buffers-4x128k']}/decisions/prefill", params={"baseline": "default"})
    assert r.status_code == 200, r.text
    [draft] = r.json()
    assert (draft["component"], draft["knob"], draft["before"], draft["after"]) == (
        "nginx", "proxy_buffers", "8 4k (default)", "4 128k")
    assert draft["baseline"] == "default" and draft["file"] == "nginx.conf"
    # No baseline named: the oldest experiment with a config snapshot (direct has none: it is the upstream).
    [draft] = client.get(f"/api/experiments/{ids['buffers-128x4k']}/decisions/prefill").json()
    assert (draft["baseline"], draft["before"], draft["after"]) == ("default", "8 4k (default)", "128 4k")
    # Once a comparison is saved, its baseline is the reference and the draft points at it as evidence.
    saved = client.post(f"/api/projects/{investigation.slug}/comparisons", json={
        "baseline": "buffers-128x4k", "experiments": ["buffers-4x128k"]}).json()
    [draft] = client.get(f"/api/experiments/{ids['buffers-4x128k']}/decisions/prefill").json()
    assert (draft["before"], draft["after"], draft["comparison_id"]) == ("128 4k", "4 128k", saved["id"])


def test_decisions_show_in_history_and_filter_it(client: TestClient, investigation: Investigation) -> None:
    slug = investigation.slug
    ids = _ids(client, slug)
    saved = client.post(f"/api/projects/{slug}/comparisons", json={
        "baseline": "default", "experiments": ["buffers-128x4k", "buffers-4x128k"]}).json()
    adopted = client.post(f"/api/projects/{slug}/decisions", json={
        "experiment_id": ids["buffers-4x128k"], "component": "nginx", "knob": "proxy_buffers",
        "before": "(default)", "after": "4 128k", "status": "adopted",
        "rationale": "RPS back to the direct level; readv one call per response",
        "comparison_short_id": saved["short_id"]})
    assert adopted.status_code == 201, adopted.text
    d = adopted.json()
    assert d["comparison_id"] == saved["id"] and d["comparison_short_id"] == saved["short_id"]
    assert d["experiment_name"] == "buffers-4x128k" and d["author_email"] == "admin@example.test"
    client.post(f"/api/projects/{slug}/decisions", json={
        "experiment_id": ids["buffers-128x4k"], "component": "nginx", "knob": "proxy_buffers", "before": "(default)",
        "after": "128 4k", "status": "proposed"})

    history = client.get(f"/api/projects/{slug}/experiments").json()["items"]
    by_name = {i["name"]: i for i in history}
    assert by_name["buffers-4x128k"]["decision"]["status"] == "adopted"
    assert by_name["buffers-4x128k"]["decision"]["after"] == "4 128k"
    assert by_name["direct"]["decision"] is None

    def names(params: dict[str, str]) -> list[str]:
        return sorted(i["name"] for i in client.get(f"/api/projects/{slug}/experiments", params=params).json()["items"])

    assert names({"decision": "adopted"}) == ["buffers-4x128k"]
    assert names({"decision": "proposed"}) == ["buffers-128x4k"]
    assert names({"decision": "none"}) == ["default", "direct"]
    assert client.get(f"/api/projects/{slug}/experiments", params={"decision": "maybe"}).status_code == 400

    # The latest decision of an experiment is the one history shows.
    changed = client.patch(f"/api/decisions/{d['id']}", json={"status": "rejected", "rationale": "p99 regressed"})
    assert changed.status_code == 200 and changed.json()["status"] == "rejected"
    assert names({"decision": "adopted"}) == []
    assert names({"decision": "rejected"}) == ["buffers-4x128k"]
    listed = client.get(f"/api/projects/{slug}/decisions", params={"status": "rejected"}).json()
    assert [x["id"] for x in listed] == [d["id"]]


def test_decisions_validate_and_belong_to_their_project(
    client: TestClient, member: TestClient, investigation: Investigation
) -> None:
    slug = investigation.slug
    ids = _ids(client, slug)
    base: dict[str, Any] = {"experiment_id": ids["default"], "knob": "proxy_buffers"}
    assert client.post(f"/api/projects/{slug}/decisions", json={**base, "status": "maybe"}).status_code == 422
    assert client.post(f"/api/projects/{slug}/decisions", json={**base, "knob": ""}).status_code == 422
    other = client.post("/api/projects", json={"name": "elsewhere"}).json()["slug"]
    assert client.post(f"/api/projects/{other}/decisions", json=base).status_code == 404
    assert client.post(f"/api/projects/{slug}/decisions",
                       json={**base, "comparison_short_id": "nope"}).status_code == 404
    mine = client.post(f"/api/projects/{slug}/decisions", json=base).json()
    # The member is a member of this project (others would not even see it).
    client.post(f"/api/projects/{slug}/members", json={"email": "member@example.test", "role": "member"})
    assert member.delete(f"/api/decisions/{mine['id']}").status_code == 403
    assert client.delete(f"/api/decisions/{mine['id']}").status_code == 204
    assert client.get(f"/api/decisions/{mine['id']}").status_code == 404
