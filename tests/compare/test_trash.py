"""Delete with undo (the project's trash, purged after 30 days) and excluding a run from every statistic."""

from __future__ import annotations

import statistics
from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.compare.investigation import CAPTURE, Investigation
from tests.conftest import login, make_user


def _rps(exp: str, runs: tuple[int, ...] = (1, 2, 3)) -> list[float]:
    out = []
    for n in runs:
        line = next(ln for ln in (CAPTURE / exp / f"run{n}" / "wrk.txt").read_text().splitlines()
                    if ln.startswith("Requests/sec:"))
        out.append(float(line.split()[1]))
    return out


def _cell(client: TestClient, slug: str, exp: str = "default") -> dict[str, Any]:
    doc = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": [exp]})
    assert doc.status_code == 200, doc.text
    row = next(r for r in doc.json()["results"] if r["key"] == "wrk.requests_per_sec")
    return dict(row["cells"][exp])


def _history(client: TestClient, slug: str, **params: Any) -> dict[str, dict[str, Any]]:
    items = client.get(f"/api/projects/{slug}/experiments", params=params).json()["items"]
    return {i["name"]: i for i in items}


def _trend(client: TestClient, slug: str, **params: Any) -> dict[str, dict[str, Any]]:
    r = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec", **params})
    assert r.status_code == 200, r.text
    return {e["experiment"]: e for e in r.json()["experiments"]}


def test_an_excluded_run_is_struck_out_of_compare_history_and_trends_and_comes_back(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    botched = small_investigation.runs["default"][2]
    assert _cell(client, slug)["n"] == 3

    r = client.patch(f"/api/runs/{botched}", json={"excluded": True})
    assert r.status_code == 400 and "excluded_reason" in r.json()["detail"]  # a reason is required
    r = client.patch(f"/api/runs/{botched}", json={"excluded": True, "excluded_reason": "wrk ran on the proxy host"})
    assert r.status_code == 200, r.text
    assert r.json()["excluded"] is True and r.json()["excluded_reason"] == "wrk ran on the proxy host"

    cell = _cell(client, slug)
    assert cell["n"] == 2 and cell["median"] == statistics.median(_rps("default", (1, 2)))
    item = _history(client, slug)["default"]
    assert item["run_count"] == 3 and item["excluded_runs"] == 1
    assert item["headline"]["requests_per_sec"] == statistics.median(_rps("default", (1, 2)))
    assert len(_trend(client, slug)["default"]["runs"]) == 2
    # Kept and shown, with its reason.
    run = client.get(f"/api/runs/{botched}").json()
    assert run["excluded"] is True and run["excluded_reason"] == "wrk ran on the proxy host"
    listed = client.get(f"/api/experiments/{item['id']}/runs").json()["items"]
    assert [r["excluded"] for r in listed].count(True) == 1

    assert client.patch(f"/api/runs/{botched}", json={"excluded": False}).json()["excluded_reason"] == ""
    assert _cell(client, slug)["n"] == 3
    assert _history(client, slug)["default"]["headline"]["requests_per_sec"] == statistics.median(_rps("default"))


def test_a_deleted_run_leaves_every_view_and_is_restored_with_its_profile(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    run = small_investigation.runs["default"][0]
    folded = b"main;serve;write 30\nmain;serve;read 10\n"
    profile = client.post(f"/api/runs/{run}/profiles", content=folded, params={"unit": "samples"},
                          headers={"Content-Type": "application/octet-stream"})
    assert profile.status_code == 201, profile.text
    pid = profile.json()["profile_id"]

    gone = client.delete(f"/api/runs/{run}")
    assert gone.status_code == 200, gone.text
    assert gone.json()["kind"] == "run" and gone.json()["experiment_name"] == "default"
    purge_in = (gone.json()["purge_at"], gone.json()["deleted_at"])
    assert purge_in[0] > purge_in[1]
    assert client.get(f"/api/runs/{run}").status_code == 404
    assert "trash" in client.get(f"/api/runs/{run}").json()["detail"]
    assert client.get(f"/api/profiles/{pid}").status_code == 404  # went with its run
    assert _cell(client, slug)["n"] == 2
    assert _history(client, slug)["default"]["run_count"] == 2
    trash = client.get(f"/api/projects/{slug}/trash").json()
    assert [(t["kind"], t["id"]) for t in trash] == [("run", run)]  # its profile is listed once, with it

    back = client.post(f"/api/runs/{run}/restore")
    assert back.status_code == 200, back.text
    assert client.get(f"/api/runs/{run}").status_code == 200
    assert client.get(f"/api/profiles/{pid}").status_code == 200
    assert _cell(client, slug)["n"] == 3
    assert client.get(f"/api/projects/{slug}/trash").json() == []
    assert client.post(f"/api/runs/{run}/restore").status_code == 409  # not in the trash any more

    # A profile alone: deleted and restored by itself.
    assert client.delete(f"/api/profiles/{pid}").json()["kind"] == "profile"
    assert client.get(f"/api/runs/{run}/profiles").json() == []
    assert client.post(f"/api/profiles/{pid}/restore").status_code == 200
    assert len(client.get(f"/api/runs/{run}/profiles").json()) == 1


def test_a_deleted_experiment_takes_its_runs_and_restoring_it_brings_back_only_those(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    exp_id = _history(client, slug)["default"]["id"]
    first = small_investigation.runs["default"][0]
    assert client.delete(f"/api/runs/{first}").status_code == 200  # deleted on its own before

    assert client.delete(f"/api/experiments/{exp_id}").status_code == 200
    assert "default" not in _history(client, slug)
    assert client.get(f"/api/experiments/{exp_id}").status_code == 404
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]})
    assert r.status_code == 404 and "default" in r.json()["detail"]
    assert "default" not in _trend(client, slug)
    kinds = [(t["kind"], t["name"]) for t in client.get(f"/api/projects/{slug}/trash").json()]
    assert kinds[0] == ("experiment", "default") and [k for k, _ in kinds] == ["experiment", "run"]
    # Its name stays taken while it is in the trash: a new one by that name would be confusing.
    r = client.post(f"/api/projects/{slug}/experiments", json={"name": "default"})
    assert r.status_code == 409

    assert client.post(f"/api/runs/{first}/restore").status_code == 409  # its experiment is in the trash
    assert client.post(f"/api/experiments/{exp_id}/restore").status_code == 200
    assert _history(client, slug)["default"]["run_count"] == 2  # the run deleted on its own stays in the trash
    assert client.post(f"/api/runs/{first}/restore").status_code == 200
    assert _history(client, slug)["default"]["run_count"] == 3


def test_the_purge_removes_what_is_older_than_30_days_and_restore_then_says_gone(
    client: TestClient, small_investigation: Investigation, session: Any
) -> None:
    from perflab.models_base import utcnow
    from perflab.trash import service

    slug = small_investigation.slug
    old, recent = small_investigation.runs["default"][:2]
    assert client.delete(f"/api/runs/{old}").status_code == 200
    assert client.delete(f"/api/runs/{recent}").status_code == 200
    session.execute(text("UPDATE run SET deleted_at = deleted_at - interval '31 days' WHERE id = :id"), {"id": old})
    session.commit()
    # Past its 30 days but not yet purged: it cannot be restored.
    assert client.post(f"/api/runs/{old}/restore").status_code == 404
    assert service.purge(session, now=utcnow()) == 1
    session.commit()
    assert client.get(f"/api/runs/{old}").status_code == 404
    assert session.execute(text("SELECT count(*) FROM run WHERE id = :id"), {"id": old}).scalar_one() == 0
    assert [t["id"] for t in client.get(f"/api/projects/{slug}/trash").json()] == [recent]
    assert service.purge(session, now=utcnow() + timedelta(days=29)) == 0


def test_archived_experiments_are_hidden_from_history_and_trends_unless_asked(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    exp_id = _history(client, slug)["default"]["id"]
    assert client.patch(f"/api/experiments/{exp_id}", json={"status": "archived"}).status_code == 200
    assert "default" not in _history(client, slug)
    assert "default" in _history(client, slug, include_archived="true")
    assert "default" in _history(client, slug, status="archived")
    assert "default" not in _trend(client, slug)
    assert "default" in _trend(client, slug, include_archived="true")


def test_viewers_cannot_delete_or_exclude_and_members_can(
    app: Any, client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    run = small_investigation.runs["default"][0]
    users = {}
    for role in ("viewer", "member"):
        make_user(f"{role}@example.test", "a long enough passphrase", role="member")
        assert client.post(f"/api/projects/{slug}/members",
                           json={"email": f"{role}@example.test", "role": role}).status_code == 201
        c = TestClient(app, base_url="http://testserver")
        users[role] = login(c, f"{role}@example.test", "a long enough passphrase")
    assert users["viewer"].delete(f"/api/runs/{run}").status_code == 403
    assert users["viewer"].patch(f"/api/runs/{run}", json={"excluded": True, "excluded_reason": "x"}).status_code == 403
    assert users["viewer"].get(f"/api/projects/{slug}/trash").status_code == 200
    assert users["member"].delete(f"/api/runs/{run}").status_code == 200
    assert users["viewer"].post(f"/api/runs/{run}/restore").status_code == 403
    assert users["member"].post(f"/api/runs/{run}/restore").status_code == 200
    # Agent tokens record runs; deleting them is for people.
    agent = TestClient(app, base_url="http://testserver")
    agent.headers["Authorization"] = f"Bearer {small_investigation.token}"
    assert agent.delete(f"/api/runs/{run}").status_code == 403
