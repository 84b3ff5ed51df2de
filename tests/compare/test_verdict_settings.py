"""The smallest meaningful change per metric family: readable by members, changed by owners, used by verdicts."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation
from tests.conftest import login


def test_owners_set_the_margin_and_the_comparison_judges_equivalence_against_it(
    app: Any, client: TestClient, investigation: Investigation
) -> None:
    slug = investigation.slug
    url = f"/api/projects/{slug}/verdict-settings"
    r = client.get(url)
    assert r.status_code == 200
    assert r.json()["margins_pct"]["throughput"] == 3.0 and r.json()["defaults_pct"]["latency"] == 5.0

    # A viewer reads the settings but cannot change them.
    assert client.post("/api/users", json={"email": "v@example.test", "password": "viewer password 1",
                                           "role": "member"}).status_code == 201
    assert client.post(f"/api/projects/{slug}/members", json={"email": "v@example.test", "role": "viewer"}
                       ).status_code == 201
    with TestClient(app, base_url="http://testserver") as other:
        viewer = login(other, "v@example.test", "viewer password 1")
        assert viewer.get(url).status_code == 200
        assert viewer.put(url, json={"margins_pct": {"throughput": 25}}).status_code == 403

    # Bad values are a 422 naming the problem, never stored.
    bad = client.put(url, json={"margins_pct": {"throughput": 0}})
    assert bad.status_code == 422 and "throughput" in bad.text
    assert client.put(url, json={"margins_pct": {"speed": 5}}).status_code == 422
    assert client.get(url).json()["margins_pct"]["throughput"] == 3.0

    # With a 25% margin, buffers-4x128k (-2.6% against direct) is provably inside it: equivalent.
    params = {"baseline": "direct", "experiments": ["buffers-4x128k"]}
    before = client.get(f"/api/projects/{slug}/compare", params=params).json()
    rps = next(m for m in before["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert rps["verdict"]["buffers-4x128k"] == "not_decided"
    r = client.put(url, json={"margins_pct": {"throughput": 25}})
    assert r.status_code == 200 and r.json()["margins_pct"]["throughput"] == 25.0
    after = client.get(f"/api/projects/{slug}/compare", params=params).json()
    rps = next(m for m in after["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert rps["verdict"]["buffers-4x128k"] == "equivalent"
    assert after["method"]["margins_pct"]["throughput"] == 25.0
    cell = next(r for r in after["results"] if r["key"] == "wrk.requests_per_sec")["cells"]["buffers-4x128k"]
    assert cell["margin_pct"] == 25.0
    # null goes back to the default.
    assert client.put(url, json={"margins_pct": {"throughput": None}}).json()["margins_pct"]["throughput"] == 3.0


def test_a_look_of_repeat_until_decided_judges_at_its_share_of_alpha(
    client: TestClient, investigation: Investigation
) -> None:
    url = f"/api/projects/{investigation.slug}/compare"
    params: dict[str, Any] = {"baseline": "direct", "experiments": ["default"]}

    def rps_verdict(**extra: Any) -> tuple[str, float]:
        r = client.get(url, params={**params, **extra})
        assert r.status_code == 200, r.text
        doc = r.json()
        return next(m for m in doc["metrics"] if m["key"] == "wrk.requests_per_sec")["verdict"]["default"], \
            doc["method"]["alpha"]

    # default is -47% with p = 0.005 on 3 vs 3 runs: decided at 5%, and at a look of 9 (5%/9 = 0.56%)...
    assert rps_verdict() == ("worse", 0.05)
    verdict, alpha = rps_verdict(look=1, looks=9)
    assert verdict == "worse" and alpha == 0.05 / 9
    # ...but not at a look of 100 (0.05%): each look spends only its share of the false-positive rate.
    assert rps_verdict(look=3, looks=100)[0] == "not_decided"
    for bad in ({"look": 2}, {"look": 5, "looks": 3}, {"look": 0, "looks": 3}, {"look": 1, "looks": 101}):
        r = client.get(url, params={**params, **bad})
        assert r.status_code == 422 and "look" in r.text, (bad, r.text)


def test_a_share_link_keeps_the_margins_in_force_when_it_was_made(
    app: Any, client: TestClient, investigation: Investigation
) -> None:
    slug = investigation.slug
    saved = client.post(f"/api/projects/{slug}/comparisons", json={
        "baseline": "direct", "experiments": ["buffers-4x128k"], "title": "buffers back at direct"})
    assert saved.status_code == 201, saved.text
    short_id = saved.json()["short_id"]

    def link() -> str:
        r = client.post(f"/api/comparisons/{short_id}/share-links", json={})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])

    def rps(doc: dict[str, Any]) -> tuple[str, float]:
        verdict = next(m for m in doc["metrics"] if m["key"] == "wrk.requests_per_sec")["verdict"]["buffers-4x128k"]
        return verdict, doc["method"]["margins_pct"]["throughput"]

    before = link()  # at the default 3% margin: -2.6% on 3 vs 3 runs is not decided
    assert client.put(f"/api/projects/{slug}/verdict-settings", json={"margins_pct": {"throughput": 25}}
                      ).status_code == 200
    after = link()

    live = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct",
                                                               "experiments": ["buffers-4x128k"]})
    assert rps(live.json()) == ("equivalent", 25.0)
    with TestClient(app, base_url="http://testserver") as anon:
        # The link made before the edit shows what was shared; the one made after, the new margin.
        assert rps(anon.get(f"/api/share/{before}").json()["compare"]) == ("not_decided", 3.0)
        assert rps(anon.get(f"/api/share/{after}").json()["compare"]) == ("equivalent", 25.0)
        # Later edits move neither link.
        assert client.put(f"/api/projects/{slug}/verdict-settings", json={"margins_pct": {"throughput": None}}
                          ).status_code == 200
        assert rps(anon.get(f"/api/share/{before}").json()["compare"]) == ("not_decided", 3.0)
        assert rps(anon.get(f"/api/share/{after}").json()["compare"]) == ("equivalent", 25.0)
