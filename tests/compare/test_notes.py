"""Notes in Markdown on a project, an experiment, a run, or a time range of a run; stored raw."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import Investigation

PAYLOADS = ["<img src=x onerror=alert(1)>", "';alert(1);//", '[x](javascript:alert(1)) <script>alert(1)</script>',
            "**bold** `code` \u202e ünïcödé"]


def _exp_id(client: TestClient, slug: str, name: str) -> int:
    items = client.get(f"/api/projects/{slug}/experiments", params={"q": name}).json()["items"]
    return int(next(i["id"] for i in items if i["name"] == name))


def test_xss_payloads_come_back_byte_identical_everywhere(client: TestClient, small_investigation: Investigation
                                                          ) -> None:
    slug = small_investigation.slug
    run = small_investigation.runs["default"][0]
    for body in PAYLOADS:
        created = client.post(f"/api/projects/{slug}/notes", json={"run_id": run, "body_md": body})
        assert created.status_code == 201, created.text
        assert created.json()["body_md"] == body
        assert client.get(f"/api/notes/{created.json()['id']}").json()["body_md"] == body
    listed = [n["body_md"] for n in client.get(f"/api/projects/{slug}/notes", params={"run_id": run}).json()]
    assert listed == PAYLOADS
    raw = client.get(f"/api/projects/{slug}/notes", params={"run_id": run}).content
    assert b"<img src=x onerror=alert(1)>" in raw  # not HTML-escaped either: the UI renders it sanitised
    doc = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]}).json()
    assert [n["body_md"] for n in doc["notes"]] == listed


def test_notes_on_project_experiment_run_and_time_range(client: TestClient, small_investigation: Investigation
                                                        ) -> None:
    slug = small_investigation.slug
    exp = _exp_id(client, slug, "default")
    run = small_investigation.runs["default"][1]
    project_note = client.post(f"/api/projects/{slug}/notes", json={"body_md": "# Why does nginx halve RPS?"}).json()
    exp_note = client.post(f"/api/projects/{slug}/notes", json={"experiment_id": exp, "body_md": "default buffers"})
    range_note = client.post(f"/api/projects/{slug}/notes",
                             json={"run_id": run, "t_start_s": 42, "t_end_s": 44.5, "body_md": "nginx reload at 00:42"})
    assert exp_note.status_code == range_note.status_code == 201
    assert range_note.json()["experiment_id"] == exp  # a run note is found from its experiment too
    assert range_note.json()["author_email"] == "admin@example.test"
    assert [n["id"] for n in client.get(f"/api/projects/{slug}/notes", params={"scope": "project"}).json()] == [
        project_note["id"]]
    by_exp = client.get(f"/api/projects/{slug}/notes", params={"experiment_id": exp}).json()
    assert {n["body_md"] for n in by_exp} == {"default buffers", "nginx reload at 00:42"}
    assert client.get(f"/api/projects/{slug}/notes", params={"scope": "run"}).json()[0]["t_end_s"] == 44.5

    changed = client.patch(f"/api/notes/{range_note.json()['id']}", json={"body_md": "reload at 00:43", "t_start_s": 43})
    assert changed.status_code == 200 and changed.json()["t_start_s"] == 43
    assert client.delete(f"/api/notes/{exp_note.json()['id']}").status_code == 204
    assert client.get(f"/api/notes/{exp_note.json()['id']}").status_code == 404


def test_bad_ranges_and_foreign_runs_are_refused(client: TestClient, small_investigation: Investigation) -> None:
    slug = small_investigation.slug
    run = small_investigation.runs["default"][0]
    r = client.post(f"/api/projects/{slug}/notes", json={"t_start_s": 1, "body_md": "where?"})
    assert r.status_code == 400 and "run" in r.json()["detail"]
    r = client.post(f"/api/projects/{slug}/notes", json={"run_id": run, "t_start_s": 9, "t_end_s": 3, "body_md": "x"})
    assert r.status_code == 400
    r = client.post(f"/api/projects/{slug}/notes", json={"body_md": ""})
    assert r.status_code == 422
    other = client.post("/api/projects", json={"name": "other"}).json()["slug"]
    r = client.post(f"/api/projects/{other}/notes", json={"run_id": run, "body_md": "cross-project"})
    assert r.status_code == 404


def test_only_the_author_or_an_admin_edits_and_tokens_only_read(
    client: TestClient, member: TestClient, small_investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = small_investigation.slug
    mine = client.post(f"/api/projects/{slug}/notes", json={"body_md": "admin's note"}).json()
    # The member is a member of this project (others would not even see it).
    client.post(f"/api/projects/{slug}/members", json={"email": "member@example.test", "role": "member"})
    theirs = member.post(f"/api/projects/{slug}/notes", json={"body_md": "member's note"}).json()
    assert member.patch(f"/api/notes/{mine['id']}", json={"body_md": "hijacked"}).status_code == 403
    assert member.delete(f"/api/notes/{mine['id']}").status_code == 403
    assert client.patch(f"/api/notes/{theirs['id']}", json={"body_md": "moderated"}).status_code == 200
    agent = bearer(small_investigation.token)
    assert agent.get(f"/api/projects/{slug}/notes").status_code == 200
    r: Any = agent.post(f"/api/projects/{slug}/notes", json={"body_md": "from a token"})
    assert r.status_code == 403
