"""Project membership: the role x project matrix over every route, and managing members.

Users: an owner, a member and a viewer of project A, none of them in project B. Every route that
reaches a project (by slug, or through a run, experiment, note, decision, comparison, share link,
profile, artifact or token of it) is called by each of them on both projects with real objects.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.backend.test_auth import iter_api_routes
from tests.conftest import FIXTURES, login

WRK = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "wrk.txt"
STRACE = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "strace-c.txt"
FOLDED = FIXTURES / "captures" / "nginx-proxy-buffers" / "diff-default-vs-4x128k.folded"
PASSWORD = "a member password 1"
ROLES = ("owner", "member", "viewer")

# What a route needs: everything else is "read" for GET and "write" otherwise.
OWNER_ROUTES = {
    ("PATCH", "/api/projects/{slug}"), ("DELETE", "/api/projects/{slug}"),
    ("GET", "/api/projects/{slug}/tokens"), ("POST", "/api/projects/{slug}/tokens"),
    ("DELETE", "/api/tokens/{token_id}"),
    ("POST", "/api/projects/{slug}/members"), ("PATCH", "/api/projects/{slug}/members/{user_id}"),
    ("DELETE", "/api/projects/{slug}/members/{user_id}"),
    ("GET", "/api/projects/{slug}/webhooks"), ("POST", "/api/projects/{slug}/webhooks"),
    ("GET", "/api/webhooks/{webhook_id}/deliveries"), ("DELETE", "/api/webhooks/{webhook_id}"),
    ("PUT", "/api/projects/{slug}/verdict-settings"),
}
WRITE_GETS: set[tuple[str, str]] = set()
READ_POSTS: set[tuple[str, str]] = set()
RANK = {"viewer": 1, "member": 2, "owner": 3}
NEED = {"read": 1, "write": 2, "owner": 3}


def _need(method: str, path: str) -> str:
    if (method, path) in OWNER_ROUTES:
        return "owner"
    if method == "GET":
        return "write" if (method, path) in WRITE_GETS else "read"
    return "read" if (method, path) in READ_POSTS else "write"


def _objects(client: TestClient, session: Any, slug: str) -> dict[str, str]:
    """One real object of every kind in project ``slug``, keyed by the path parameter naming it."""
    r = client.post(f"/api/projects/{slug}/imports", json={
        "experiment": "default", "label": "r1",
        "files": [{"name": "wrk.txt", "content": WRK.read_text()},
                  {"name": "strace-c.txt", "content": STRACE.read_text(), "role": "proxy"}]})
    assert r.status_code == 201, r.text
    run_id, exp_id = r.json()["run_id"], r.json()["experiment_id"]
    detail = client.get(f"/api/runs/{run_id}").json()
    note = client.post(f"/api/projects/{slug}/notes", json={"body_md": "seen", "experiment_id": exp_id}).json()
    decision = client.post(f"/api/projects/{slug}/decisions", json={"experiment_id": exp_id, "knob": "proxy_buffers"})
    comparison = client.post(f"/api/projects/{slug}/comparisons", json={"baseline": "default",
                                                                        "experiments": ["default"]})
    assert comparison.status_code == 201, comparison.text
    short_id = comparison.json()["short_id"]
    link = client.post(f"/api/comparisons/{short_id}/share-links", json={}).json()
    profile = client.post(f"/api/runs/{run_id}/profiles", content=FOLDED.read_bytes(),
                          headers={"Content-Type": "application/octet-stream"})
    assert profile.status_code == 201, profile.text
    token = client.post(f"/api/projects/{slug}/tokens", json={"name": "t"}).json()
    hook = client.post(f"/api/projects/{slug}/webhooks", json={
        "name": "w", "url": "http://127.0.0.1:9/hook", "events": ["gate_failed"]}).json()
    artifact = session.execute(text("SELECT a.id FROM artifact a JOIN project p ON p.id = a.project_id "
                                    "WHERE p.slug = :s LIMIT 1"), {"s": slug}).scalar_one()
    return {
        "slug": slug, "run_id": run_id, "experiment_id": str(exp_id), "note_id": str(note["id"]),
        "decision_id": str(decision.json()["id"]), "short_id": short_id, "link_id": str(link["id"]),
        "profile_id": str(profile.json()["profile_id"]), "token_id": str(token["id"]),
        "artifact_id": str(artifact), "webhook_id": str(hook["id"]), "stream_id": str(detail["streams"][0]["id"]),
    }


@pytest.fixture
def world(app: Any, client: TestClient, session: Any) -> Iterator[dict[str, Any]]:
    a = client.post("/api/projects", json={"name": "Alpha team"}).json()["slug"]
    b = client.post("/api/projects", json={"name": "Bravo team"}).json()["slug"]
    users: dict[str, TestClient] = {}
    for role in ROLES:
        email = f"{role}@example.test"
        assert client.post("/api/users", json={"email": email, "password": PASSWORD, "role": "member"}
                           ).status_code == 201
        assert client.post(f"/api/projects/{a}/members", json={"email": email, "role": role}).status_code == 201
    for role in ROLES:
        c = TestClient(app, base_url="http://testserver")
        c.__enter__()
        users[role] = login(c, f"{role}@example.test", PASSWORD)
    objects = {a: _objects(client, session, a), b: _objects(client, session, b)}
    yield {"a": a, "b": b, "users": users, "objects": objects, "member_ids": {
        role: users[role].get("/api/auth/me").json()["id"] for role in ROLES}}
    for c in users.values():
        c.__exit__(None, None, None)


def _project_routes(app: Any) -> list[tuple[str, str]]:
    out = []
    for route in iter_api_routes(app.routes):
        if route.path.startswith(("/api/share/", "/api/agent")) or route.path == "/{path:path}":
            continue
        params = set(re.findall(r"\{([^}:]+)", route.path))
        if not params:
            continue
        for method in sorted(route.methods - {"HEAD", "OPTIONS"}):
            out.append((method, route.path))
    return out


def _url(path: str, objects: dict[str, str], member_ids: dict[str, int]) -> str:
    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "user_id":
            return str(member_ids["viewer"])
        assert name in objects, f"{path}: add a real object for {{{name}}} to _objects() so the matrix covers it"
        return objects[name]
    return re.sub(r"\{([^}:]+)\}", sub, path)


def _extra(path: str, objects: dict[str, str]) -> dict[str, Any]:
    """Query parameters some GET routes require, so that an allowed call answers 200."""
    if path.endswith("/compare") or "/compare/" in path:
        return {"experiments": ["default"], "baseline": "default", "role": "proxy", "metric": "vmstat.sy"}
    if path.endswith("/overlay"):
        return {"role": "proxy", "metric": "vmstat.sy"}
    if path.endswith("/series/data"):
        return {"ids": [1]}
    if path.endswith("/diff"):
        return {"other": objects["profile_id"]}
    if path.endswith("/trend"):
        return {"metric": "wrk.requests_per_sec"}
    if path.endswith("/noise"):
        return {"experiment": "default"}
    return {}


def test_every_project_route_obeys_roles_and_hides_other_projects(app: Any, world: dict[str, Any]) -> None:
    routes = _project_routes(app)
    assert len(routes) >= 50
    checked = 0
    for method, path in routes:
        need = _need(method, path)
        for role, c in world["users"].items():
            # Project B: none of them is in it, so it does not exist for them.
            url = _url(path, world["objects"][world["b"]], world["member_ids"])
            r = c.request(method, url, params=_extra(path, world["objects"][world["b"]]), json={})
            assert r.status_code == 404, f"{role}: {method} {url} answered {r.status_code} on a foreign project"
            assert world["b"] not in r.json()["detail"] or "{slug}" in path, r.json()
            url = _url(path, world["objects"][world["a"]], world["member_ids"])
            allowed = RANK[role] >= NEED[need]
            if not allowed:
                r = c.request(method, url, params=_extra(path, world["objects"][world["a"]]), json={})
                assert r.status_code == 403, f"{role}: {method} {url} ({need}) answered {r.status_code}"
                checked += 1
            elif method == "GET" and "/events" not in path:
                r = c.get(url, params=_extra(path, world["objects"][world["a"]]))
                assert r.status_code not in (401, 403, 404), f"{role}: {method} {url} answered {r.status_code}"
                checked += 1
    assert checked >= 100


def test_a_user_sees_only_their_projects_and_admins_see_all(client: TestClient, world: dict[str, Any]) -> None:
    assert [p["slug"] for p in world["users"]["viewer"].get("/api/projects").json()] == [world["a"]]
    assert {p["slug"] for p in client.get("/api/projects").json()} == {world["a"], world["b"]}
    r = world["users"]["member"].get(f"/api/projects/{world['b']}")
    assert r.status_code == 404 and r.json()["detail"] == f"no project {world['b']!r}"


def test_viewer_reads_but_cannot_write(world: dict[str, Any]) -> None:
    viewer, a = world["users"]["viewer"], world["a"]
    assert viewer.get(f"/api/projects/{a}/experiments").json()["total"] == 1
    r = viewer.post(f"/api/projects/{a}/experiments", json={"name": "mine"})
    assert r.status_code == 403 and "viewer" in r.json()["detail"]
    assert world["users"]["member"].post(f"/api/projects/{a}/experiments", json={"name": "mine"}).status_code == 201


def test_owners_manage_members_and_tokens(app: Any, client: TestClient, world: dict[str, Any]) -> None:
    owner, member, a = world["users"]["owner"], world["users"]["member"], world["a"]
    ids = world["member_ids"]
    assert member.post(f"/api/projects/{a}/tokens", json={"name": "x"}).status_code == 403
    token = owner.post(f"/api/projects/{a}/tokens", json={"name": "x"}).json()
    assert owner.delete(f"/api/tokens/{token['id']}").status_code == 200
    r = owner.patch(f"/api/projects/{a}/members/{ids['viewer']}", json={"role": "member"})
    assert r.status_code == 200 and r.json()["role"] == "member"
    listing = member.get(f"/api/projects/{a}/members").json()
    assert listing["my_role"] == "member"
    assert {m["email"]: m["role"] for m in listing["members"]}["viewer@example.test"] == "member"
    assert owner.delete(f"/api/projects/{a}/members/{ids['viewer']}").status_code == 204
    assert world["users"]["viewer"].get(f"/api/projects/{a}").status_code == 404
    # The last owner stays: a project is never left without one.
    admin_id = client.get("/api/auth/me").json()["id"]
    assert client.delete(f"/api/projects/{a}/members/{admin_id}").status_code == 204
    r = owner.patch(f"/api/projects/{a}/members/{ids['owner']}", json={"role": "viewer"})
    assert r.status_code == 409 and "owner" in r.json()["detail"]
    r = owner.post(f"/api/projects/{a}/members", json={"email": "nobody@example.test", "role": "viewer"})
    assert r.status_code == 404 and "nobody@example.test" in r.json()["detail"]
    r = owner.post(f"/api/projects/{a}/members", json={"email": "member@example.test", "role": "boss"})
    assert r.status_code == 422
    assert member.delete(f"/api/projects/{a}").status_code == 403
    assert owner.delete(f"/api/projects/{a}").status_code == 204


def test_creator_of_a_project_becomes_its_owner(world: dict[str, Any]) -> None:
    member = world["users"]["member"]
    slug = member.post("/api/projects", json={"name": "my own"}).json()["slug"]
    reply = member.get(f"/api/projects/{slug}/members").json()
    assert reply["my_role"] == "owner" and [m["email"] for m in reply["members"]] == ["member@example.test"]


def test_tokens_stay_in_their_project(app: Any, client: TestClient, world: dict[str, Any]) -> None:
    a, b = world["a"], world["b"]
    token = client.post(f"/api/projects/{a}/tokens", json={"name": "r", "scopes": ["read"]}).json()["token"]
    with TestClient(app) as agent:
        agent.headers["Authorization"] = f"Bearer {token}"
        assert agent.get(f"/api/projects/{a}/trend", params={"metric": "wrk.requests_per_sec"}).status_code == 200
        assert agent.get(f"/api/runs/{world['objects'][b]['run_id']}").status_code == 404
        assert agent.get(f"/api/projects/{a}/members").status_code == 200
        assert agent.post(f"/api/projects/{a}/members", json={"email": "x@example.test"}).status_code == 403


def test_cli_adds_and_removes_members(database_url: str, client: TestClient, world: dict[str, Any]) -> None:
    env = {**os.environ, "PERFLAB_DATABASE_URL": database_url}
    perflab = [sys.executable, "-m", "perflab.cli", "project"]
    a, b = world["a"], world["b"]
    out = subprocess.run([*perflab, "add-member", b, "viewer@example.test", "--role", "viewer"], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0 and "added viewer@example.test as viewer" in out.stdout, out.stderr
    assert world["users"]["viewer"].get(f"/api/projects/{b}").status_code == 200
    out = subprocess.run([*perflab, "remove-member", b, "viewer@example.test"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert world["users"]["viewer"].get(f"/api/projects/{b}").status_code == 404
    out = subprocess.run([*perflab, "add-member", a, "ghost@example.test"], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "no user 'ghost@example.test'" in out.stderr


def test_migration_makes_existing_users_members_of_existing_projects(database_url: str, session: Any) -> None:
    """Upgrading keeps today's access: every non-admin account can still write every project."""
    from alembic import command
    from alembic.script import ScriptDirectory
    from perflab.cli import _alembic_config, migrate

    cfg = _alembic_config()
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    before = ScriptDirectory.from_config(cfg).get_revision("20261123_members").down_revision
    command.downgrade(cfg, before)
    try:
        session.execute(text("INSERT INTO project (slug, name, description) VALUES ('old', 'Old', '')"))
        session.execute(text("""INSERT INTO "user" (email, password_hash, role, is_active) VALUES
                                ('m@example.test', 'x', 'member', true), ('adm@example.test', 'x', 'admin', true)"""))
        session.commit()
        migrate(database_url, "head")
        rows = session.execute(text("""SELECT u.email, m.role FROM project_member m JOIN "user" u ON u.id = m.user_id
                                       JOIN project p ON p.id = m.project_id WHERE p.slug = 'old'""")).all()
        assert [tuple(r) for r in rows] == [("m@example.test", "member")]
    finally:
        migrate(database_url, "head")


def test_a_decision_is_changed_by_its_author_or_an_owner(world: dict[str, Any]) -> None:
    """Members write, but another person's decision record is theirs: only its author or an owner edits it."""
    a, users = world["a"], world["users"]
    exp_id = world["objects"][a]["experiment_id"]
    mine = users["member"].post(f"/api/projects/{a}/decisions", json={"experiment_id": int(exp_id), "knob": "sndbuf"})
    assert mine.status_code == 201, mine.text
    admins = world["objects"][a]["decision_id"]
    r = users["member"].patch(f"/api/decisions/{admins}", json={"status": "adopted"})
    assert r.status_code == 403 and "author" in r.json()["detail"]
    assert users["member"].delete(f"/api/decisions/{admins}").status_code == 403
    assert users["member"].patch(f"/api/decisions/{mine.json()['id']}", json={"status": "adopted"}).status_code == 200
    assert users["owner"].patch(f"/api/decisions/{admins}", json={"status": "rejected"}).json()["status"] == "rejected"
    assert users["owner"].delete(f"/api/decisions/{mine.json()['id']}").status_code == 204
