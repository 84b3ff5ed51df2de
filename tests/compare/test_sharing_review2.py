"""Share links after the second review (issue 21): owners revoke any link of their project, removing a
member can revoke theirs, a link is rate limited per address and per link, and it stays frozen when
configs, profiles or experiment names change after it was saved."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation
from tests.conftest import FIXTURES, login, make_user

FOLDED = FIXTURES / "captures" / "nginx-proxy-buffers" / "diff-default-vs-4x128k.folded"
PASSWORD = "another long passphrase"


def _save(client: TestClient, slug: str) -> str:
    r = client.post(f"/api/projects/{slug}/comparisons", json={"baseline": "direct", "experiments": ["default"]})
    assert r.status_code == 201, r.text
    return str(r.json()["short_id"])


def _share(client: TestClient, short_id: str) -> dict[str, Any]:
    r = client.post(f"/api/comparisons/{short_id}/share-links", json={})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _user(app: Any, client: TestClient, slug: str, email: str, role: str) -> tuple[TestClient, int]:
    make_user(email, PASSWORD, role="member")
    r = client.post(f"/api/projects/{slug}/members", json={"email": email, "role": role})
    assert r.status_code == 201, r.text
    return login(TestClient(app), email, PASSWORD), int(r.json()["user_id"])


def test_an_owner_revokes_any_link_of_their_project(app: Any, client: TestClient, anon: TestClient,
                                                    small_investigation: Investigation) -> None:
    slug = small_investigation.slug
    member, _ = _user(app, client, slug, "member@example.test", "member")
    owner, _ = _user(app, client, slug, "owner@example.test", "owner")
    link = _share(member, _save(client, slug))  # the admin saved it, the member shared it
    listed = owner.get(f"/api/projects/{slug}/share-links").json()
    assert [(x["id"], x["created_by"], x["status"], x["can_revoke"]) for x in listed] == [
        (link["id"], "member@example.test", "active", True)]
    assert member.get(f"/api/projects/{slug}/share-links").json()[0]["can_revoke"] is True
    r = owner.delete(f"/api/share-links/{link['id']}")
    assert r.status_code == 200 and r.json()["status"] == "revoked", r.text
    assert anon.get(f"/api/share/{link['token']}").status_code == 410
    # Members still revoke only their own.
    other = _share(owner, _save(owner, slug))
    assert member.delete(f"/api/share-links/{other['id']}").status_code == 403
    mine = {x["id"]: x["can_revoke"] for x in member.get(f"/api/projects/{slug}/share-links").json()}
    assert mine == {link["id"]: True, other["id"]: False}


def test_removing_a_member_can_revoke_their_links(app: Any, client: TestClient, anon: TestClient,
                                                  small_investigation: Investigation) -> None:
    slug = small_investigation.slug
    leaving, leaving_id = _user(app, client, slug, "leaving@example.test", "member")
    staying, staying_id = _user(app, client, slug, "staying@example.test", "member")
    short_id = _save(leaving, slug)
    theirs = [_share(leaving, short_id), _share(leaving, short_id)]
    kept = _share(staying, short_id)
    r = client.delete(f"/api/projects/{slug}/members/{leaving_id}", params={"revoke_share_links": "true"})
    assert r.status_code == 204, r.text
    for link in theirs:
        assert anon.get(f"/api/share/{link['token']}").status_code == 410
    assert anon.get(f"/api/share/{kept['token']}").status_code == 200
    # Without the parameter their links stay (the owner decides, the UI asks).
    assert client.delete(f"/api/projects/{slug}/members/{staying_id}").status_code == 204
    assert anon.get(f"/api/share/{kept['token']}").status_code == 200


def test_share_views_are_limited_per_address_and_per_link(client: TestClient, anon: TestClient,
                                                          small_investigation: Investigation,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from perflab.sharing.service import address_view_limiter, link_view_limiter

    short_id = _save(client, small_investigation.slug)
    first, second = _share(client, short_id), _share(client, short_id)
    monkeypatch.setattr(link_view_limiter, "max_misses", 3)
    for _ in range(3):
        assert anon.get(f"/api/share/{first['token']}").status_code == 200
    r = anon.get(f"/api/share/{first['token']}")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "views of this share link" in r.json()["detail"] and r.headers["cache-control"] == "private, no-store"
    # Another link from the same address is not affected by that link's limit...
    assert anon.get(f"/api/share/{second['token']}").status_code == 200
    # ...but the address has its own: 6 views in all (the refused one counted too), then it stops.
    monkeypatch.setattr(address_view_limiter, "max_misses", 6)
    assert anon.get(f"/api/share/{second['token']}").status_code == 200
    r = anon.get(f"/api/share/{second['token']}/overlay", params={"role": "proxy", "metric": "vmstat.sy"})
    assert r.status_code == 429 and "from this address" in r.json()["detail"]


def test_a_share_link_stays_frozen_when_configs_profiles_and_names_change_later(
    app: Any, client: TestClient, anon: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    link = _share(client, _save(client, slug))
    before = anon.get(f"/api/share/{link['token']}").json()
    run_id = small_investigation.runs["default"][0]
    agent = TestClient(app, headers={"Authorization": f"Bearer {small_investigation.token}"})
    r = agent.post(f"/api/agent/runs/{run_id}/artifacts", params={"kind": "config", "name": "late.conf",
                                                                  "role": "proxy"},
                   content=b"worker_connections 4096;\n")
    assert r.status_code == 201, r.text
    r = client.post(f"/api/runs/{run_id}/profiles", content=FOLDED.read_bytes(),
                    headers={"Content-Type": "application/octet-stream"})
    assert r.status_code == 201, r.text
    default_id = next(c["id"] for c in before["compare"]["columns"] if c["name"] == "default")
    assert client.patch(f"/api/experiments/{default_id}", json={"name": "renamed later"}).status_code == 200
    # The project sees all three changes...
    live = client.get(f"/api/projects/{slug}/compare",
                      params={"baseline": "direct", "experiments": ["renamed later"]}).json()
    assert live["experiments"] == ["direct", "renamed later"]
    assert any(f["name"] == "late.conf" for c in live["changes"] for f in c["files"])
    assert any(r["profile_ids"] for c in live["columns"] for r in c["runs"])
    # ...the link shows none of them.
    after = anon.get(f"/api/share/{link['token']}").json()
    assert after["comparison"]["experiments"] == before["comparison"]["experiments"] == ["direct", "default"]
    assert after["compare"]["changes"] == before["compare"]["changes"]
    assert [r["profile_ids"] for c in after["compare"]["columns"] for r in c["runs"]] == \
        [r["profile_ids"] for c in before["compare"]["columns"] for r in c["runs"]]
    assert after["compare"]["results"] == before["compare"]["results"]
    assert after["compare"]["findings"] == before["compare"]["findings"]
