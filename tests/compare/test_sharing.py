"""Saved comparisons and share links (RELIABILITY.md items 14-18): a link reads its comparison, nothing else."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.compare.investigation import Investigation, load_with_testclient

SHARE_HEADERS = {"cache-control": "private, no-store", "referrer-policy": "no-referrer"}


def _save(client: TestClient, slug: str, **view: Any) -> dict[str, Any]:
    r = client.post(f"/api/projects/{slug}/comparisons", json={
        "baseline": "direct", "experiments": ["default"], "title": "nginx in front halves RPS",
        "view_state": {"overlays": [{"role": "proxy", "metric": "vmstat.sy"}], "sections": ["results", "syscalls"],
                       "ui": {"sort": "delta"}, **view}})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _share(client: TestClient, short_id: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/api/comparisons/{short_id}/share-links", json=body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _assert_share_headers(r: Any) -> None:
    for k, v in SHARE_HEADERS.items():
        assert r.headers[k] == v, (k, r.headers.get(k))
    assert r.headers["x-robots-tag"].startswith("noindex")
    # Nothing from a third-party origin may load on a share page.
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "http" not in csp


def test_a_saved_comparison_is_an_immutable_snapshot_of_its_runs(
    app: Any, client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    saved = _save(client, slug)
    assert len(saved["short_id"]) == 10 and saved["url"].endswith(f"/c/{saved['short_id']}")
    assert sorted(map(str, saved["run_ids"])) == sorted(small_investigation.all_runs)
    # Another run of `default` arrives later: the live comparison sees it, the saved one does not.
    load_with_testclient(app, client, slug, experiments=("default",), runs=(1,))
    live = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]})
    assert live.json()["metrics"][0]["runs"]["default"] == 4
    opened = client.get(f"/api/comparisons/{saved['short_id']}")
    assert opened.status_code == 200
    body = opened.json()
    assert body["compare"]["metrics"][0]["runs"]["default"] == 3
    assert body["comparison"]["view_state"]["ui"] == {"sort": "delta"}
    assert body["comparison"]["title"] == "nginx in front halves RPS"
    assert body["compare"]["comparison"]["short_id"] == saved["short_id"]
    # Immutable: there is no route to change it.
    assert client.patch(f"/api/comparisons/{saved['short_id']}", json={"title": "x"}).status_code == 405
    assert client.put(f"/api/comparisons/{saved['short_id']}", json={}).status_code == 405
    md = client.get(f"/api/comparisons/{saved['short_id']}/markdown").text
    assert saved["url"] in md and "| Requests/sec |" in md
    csv_text = client.get(f"/api/comparisons/{saved['short_id']}/export.csv").text
    assert csv_text.startswith("section,role,key")
    assert [c["short_id"] for c in client.get(f"/api/projects/{slug}/comparisons").json()] == [saved["short_id"]]


def test_share_tokens_have_256_random_bits_and_only_their_hash_is_stored(
    client: TestClient, small_investigation: Investigation, session: Any
) -> None:
    saved = _save(client, small_investigation.slug)
    link = _share(client, saved["short_id"])
    token = link["token"]
    assert token.startswith("pls_") and len(token) >= 4 + 43 and link["url"].endswith(f"/s/{token}")
    expires = datetime.fromisoformat(link["expires_at"])
    assert timedelta(days=89) < expires - datetime.now(UTC) <= timedelta(days=90)
    dump = " ".join(str(v) for row in session.execute(text("SELECT * FROM share_link")).all() for v in row)
    assert token not in dump and token[4:] not in dump
    listed = client.get(f"/api/projects/{small_investigation.slug}/share-links").json()
    assert "token" not in listed[0] and listed[0]["hint"] == token[4:10] and listed[0]["status"] == "active"


def test_the_public_link_opens_the_comparison_logged_out_with_private_headers(
    client: TestClient, anon: TestClient, small_investigation: Investigation
) -> None:
    saved = _save(client, small_investigation.slug)
    token = _share(client, saved["short_id"])["token"]
    r = anon.get(f"/api/share/{token}")
    assert r.status_code == 200, r.text
    _assert_share_headers(r)
    body = r.json()
    assert body["comparison"]["title"] == "nginx in front halves RPS"
    assert body["compare"]["experiments"] == ["direct", "default"]
    rps = next(m for m in body["compare"]["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert rps["verdict"]["default"] == "worse"
    r = anon.get(f"/api/share/{token}/overlay", params={"role": "proxy", "metric": "vmstat.sy"})
    assert r.status_code == 200 and len(r.json()["experiments"]) == 2
    _assert_share_headers(r)
    r = anon.get(f"/api/share/{token}/overlay", params={"role": "proxy", "metric": "vmstat.sy", "max_points": "x"})
    assert r.status_code == 422
    _assert_share_headers(r)


def test_a_share_token_reads_exactly_its_comparison_and_nothing_else(
    app: Any, client: TestClient, anon: TestClient, small_investigation: Investigation,
    bearer: Callable[[str], TestClient]
) -> None:
    slug = small_investigation.slug
    saved = _save(client, slug, time_range={"start_s": 2, "end_s": 8})
    token = _share(client, saved["short_id"])["token"]
    base = f"/api/share/{token}/overlay"
    ok = {"role": "proxy", "metric": "vmstat.sy"}
    assert anon.get(base, params=ok).status_code == 200
    # Another metric, a wider time range, another run: refused.
    assert anon.get(base, params={**ok, "metric": "vmstat.cs"}).status_code == 403
    assert anon.get(base, params={**ok, "t_start_s": 0}).status_code == 403
    assert anon.get(base, params={**ok, "t_end_s": 60}).status_code == 403
    narrower = anon.get(base, params={**ok, "t_start_s": 3, "t_end_s": 6})
    assert narrower.status_code == 200
    line = narrower.json()["experiments"][0]["runs"][0]["lines"][0]
    assert min(line["t"]) >= 3 and max(line["t"]) <= 6
    frozen = anon.get(base, params=ok).json()["experiments"][0]["runs"][0]["lines"][0]
    assert min(frozen["t"]) >= 2 and max(frozen["t"]) <= 8  # the frozen range applies by default
    # A run outside the comparison (saved later in another experiment) is not found.
    extra = load_with_testclient(app, client, slug, experiments=("buffers-4x128k",), runs=(1,))
    foreign = extra.runs["buffers-4x128k"][0]
    assert anon.get(base, params={**ok, "runs": [foreign]}).status_code == 404
    assert anon.get(base, params={**ok, "runs": [str(uuid.uuid4())]}).status_code == 404
    assert anon.get(base, params={**ok, "runs": [small_investigation.runs["default"][0]]}).status_code == 200
    # The share view never includes the later experiment.
    assert anon.get(f"/api/share/{token}").json()["compare"]["experiments"] == ["direct", "default"]
    # Writes through the share path are refused without touching anything.
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        r = anon.request(method, f"/api/share/{token}", json={})
        assert r.status_code == 403, method
        _assert_share_headers(r)
        assert anon.request(method, f"/api/share/{token}/overlay", json={}).status_code == 403
    # The token is not a credential anywhere else: as a bearer token, in a query string, or to revoke itself.
    as_bearer = bearer(token)
    for path in (f"/api/projects/{slug}/experiments", f"/api/projects/{slug}/compare?baseline=direct&experiments=default",
                 f"/api/comparisons/{saved['short_id']}", f"/api/projects/{slug}/share-links", f"/api/projects/{slug}/notes"):
        assert as_bearer.get(path).status_code == 401, path
    link_id = client.get(f"/api/projects/{slug}/share-links").json()[0]["id"]
    assert as_bearer.delete(f"/api/share-links/{link_id}").status_code == 401
    assert anon.delete(f"/api/share-links/{link_id}").status_code == 401
    assert anon.get(f"/api/projects/{slug}/experiments", params={"token": token}).status_code == 401
    assert anon.get(f"/api/share/{token}").status_code == 200  # still valid: nobody could revoke it
    # An agent token is not a share token.
    assert anon.get(f"/api/share/{small_investigation.token}").status_code == 404


def test_revocation_and_expiry_act_on_the_next_request(
    client: TestClient, member: TestClient, anon: TestClient, small_investigation: Investigation, session: Any
) -> None:
    saved = _save(client, small_investigation.slug)
    link = _share(client, saved["short_id"])
    other = _share(client, saved["short_id"], expires_in_days=1)
    assert anon.get(f"/api/share/{link['token']}").status_code == 200
    # Only whoever created it (or an admin) revokes; a member who did not create it may not.
    assert member.delete(f"/api/share-links/{link['id']}").status_code == 403
    members_link = _share(member, saved["short_id"])
    assert member.delete(f"/api/share-links/{members_link['id']}").json()["status"] == "revoked"
    revoked = client.delete(f"/api/share-links/{link['id']}")
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    r = anon.get(f"/api/share/{link['token']}")
    assert r.status_code == 410
    _assert_share_headers(r)
    assert anon.get(f"/api/share/{link['token']}/overlay", params={"role": "proxy", "metric": "vmstat.sy"}
                    ).status_code == 410
    assert anon.get(f"/api/share/{other['token']}").status_code == 200
    session.execute(text("UPDATE share_link SET expires_at = now() - interval '1 second' WHERE id = :id"),
                    {"id": other["id"]})
    session.commit()
    assert anon.get(f"/api/share/{other['token']}").status_code == 410
    statuses = {x["id"]: x["status"] for x in client.get(f"/api/projects/{small_investigation.slug}/share-links").json()}
    assert statuses == {link["id"]: "revoked", other["id"]: "expired", members_link["id"]: "revoked"}
    assert client.post(f"/api/comparisons/{saved['short_id']}/share-links",
                       json={"expires_in_days": 0}).status_code == 422
    assert client.post(f"/api/comparisons/{saved['short_id']}/share-links",
                       json={"expires_in_days": 3650}).status_code == 422


@pytest.mark.parametrize("guess", ["pls_" + "A" * 43, "not-a-token", "plb_" + "B" * 43])
def test_unknown_tokens_are_404_and_guessing_is_rate_limited(anon: TestClient, guess: str) -> None:
    r = anon.get(f"/api/share/{guess}")
    assert r.status_code == 404
    _assert_share_headers(r)
    codes = [anon.get(f"/api/share/{guess}{i}").status_code for i in range(25)]
    assert codes[:19] == [404] * 19 and codes[-1] == 429
    r = anon.get(f"/api/share/{guess}")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    _assert_share_headers(r)


def test_notes_written_or_edited_after_sharing_stay_off_the_public_link(
    client: TestClient, anon: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    experiments = client.get(f"/api/projects/{slug}/experiments").json()["items"]
    default_id = next(e["id"] for e in experiments if e["name"] == "default")
    run_id = small_investigation.runs["default"][0]

    def note(body: str, **where: Any) -> int:
        r = client.post(f"/api/projects/{slug}/notes", json={"body_md": body, **where})
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    note("before: sy is 80% with nginx in front", experiment_id=default_id)
    edited = note("before, later edited", experiment_id=default_id)
    note("before: a range on the chart", run_id=run_id, t_start_s=1, t_end_s=3)
    token = _share(client, _save(client, slug)["short_id"])["token"]
    note("after: reviewer-only musings", experiment_id=default_id)
    note("after: a range added later", run_id=run_id, t_start_s=2, t_end_s=4)
    assert client.patch(f"/api/notes/{edited}", json={"body_md": "rewritten after sharing"}).status_code == 200

    shared = [n["body_md"] for n in anon.get(f"/api/share/{token}").json()["compare"]["notes"]]
    assert shared == ["before: sy is 80% with nginx in front", "before: a range on the chart"]
    overlay = anon.get(f"/api/share/{token}/overlay", params={"role": "proxy", "metric": "vmstat.sy"}).json()
    assert [n["body_md"] for n in overlay["notes"]] == ["before: a range on the chart"]
    # The live comparison, for the project's members, has every note.
    live = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]})
    assert len(live.json()["notes"]) == 5
