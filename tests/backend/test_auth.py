"""Access control: deny by default, sessions with CSRF, agent tokens, no default credentials."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, login, make_user


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "00000000-0000-4000-8000-000000000001", path)


def iter_api_routes(routes: list[Any]) -> Any:
    """Every APIRoute, including those of routers included lazily (FastAPI keeps them nested)."""
    for route in routes:
        nested = getattr(route, "original_router", None)
        if nested is not None:
            yield from iter_api_routes(nested.routes)
        elif isinstance(route, APIRoute):
            yield route


def test_every_route_denies_anonymous_callers_except_the_allow_list(app: Any, anon: TestClient) -> None:
    from perflab.main import PUBLIC_ROUTES

    checked = 0
    walked = set()
    for route in iter_api_routes(app.routes):
        walked.add(route.path)
        for method in route.methods - {"HEAD", "OPTIONS"}:
            if (method, route.path) in PUBLIC_ROUTES or route.path == "/{path:path}":
                continue
            r = anon.request(method, _concrete(route.path), json={})
            assert r.status_code in (401, 403), f"{method} {route.path} answered {r.status_code} without credentials"
            assert set(r.json()) == {"error", "detail"}
            checked += 1
    assert checked >= 20
    # The walk must see every documented route, or a new router could slip past it.
    assert set(app.openapi()["paths"]) <= walked


def test_public_routes_answer_without_credentials(anon: TestClient) -> None:
    assert anon.get("/api/health").json()["database"] == "ok"
    r = anon.get("/agent/perflab-agent.pyz")
    assert r.status_code == 200 and r.content.startswith(b"#!/usr/bin/env python3")


def test_no_default_credentials_on_a_fresh_database(anon: TestClient) -> None:
    for email, password in [("admin", "admin"), ("admin@localhost", "admin"), ("admin@localhost", ""),
                            ("admin", "password1234")]:
        r = anon.post("/api/auth/login", json={"email": email, "password": password})
        assert r.status_code in (401, 422), (email, password, r.status_code)


def test_login_sets_http_only_session_and_readable_csrf_cookie(anon: TestClient) -> None:
    make_user()
    r = anon.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert r.status_code == 200
    cookies = r.headers.get_list("set-cookie")
    session_cookie = next(c for c in cookies if c.startswith("perflab_session="))
    csrf_cookie = next(c for c in cookies if c.startswith("perflab_csrf="))
    assert "HttpOnly" in session_cookie and "samesite=lax" in session_cookie.lower()
    assert "HttpOnly" not in csrf_cookie
    assert anon.get("/api/auth/me").json()["email"] == ADMIN_EMAIL


def test_wrong_password_is_refused_and_guessing_is_rate_limited(anon: TestClient) -> None:
    make_user()
    codes = [anon.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": f"nope{i}"}).status_code
             for i in range(12)]
    assert codes[0] == 401
    assert codes[-1] == 429
    r = anon.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0


def test_state_changing_requests_need_the_csrf_token(client: TestClient) -> None:
    token = client.headers.pop("X-CSRF-Token")
    r = client.post("/api/projects", json={"name": "x"})
    assert r.status_code == 403 and "CSRF" in r.json()["detail"]
    r = client.post("/api/projects", json={"name": "x"}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    r = client.post("/api/projects", json={"name": "x"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 201


def test_cross_origin_login_is_refused(anon: TestClient) -> None:
    make_user()
    r = anon.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                  headers={"Origin": "http://evil.example"})
    assert r.status_code == 403


def test_changing_the_password_ends_other_sessions(app: Any, client: TestClient) -> None:
    with TestClient(app) as other:
        login(other)
        assert other.get("/api/auth/me").status_code == 200
        r = client.post("/api/auth/password",
                        json={"current_password": ADMIN_PASSWORD, "new_password": "a much longer new password"})
        assert r.status_code == 204
        assert other.get("/api/auth/me").status_code == 401
        assert client.get("/api/auth/me").status_code == 200


def test_logout_ends_the_session(client: TestClient) -> None:
    assert client.post("/api/auth/logout").status_code == 204
    assert client.get("/api/auth/me").status_code == 401


def test_agent_token_is_shown_once_stored_hashed_and_scoped(
    app: Any, client: TestClient, project: dict[str, Any], session: Any
) -> None:
    r = client.post(f"/api/projects/{project['slug']}/tokens", json={"name": "proxy", "scopes": ["read"]})
    token = r.json()["token"]
    assert token.startswith("plb_") and len(token) >= 40
    listed = client.get(f"/api/projects/{project['slug']}/tokens").json()
    assert "token" not in listed[0] and listed[0]["hint"] == token[4:10]
    dump = session.execute(text("SELECT token_hash FROM agent_token")).scalars().all()
    assert token not in dump and all(len(h) == 64 for h in dump)

    with TestClient(app) as agent:
        agent.headers["Authorization"] = f"Bearer {token}"
        assert agent.get(f"/api/projects/{project['slug']}/experiments").status_code == 200
        # read scope only: writing through a token-writable route is refused
        other = client.post("/api/projects", json={"name": "other"}).json()
        assert agent.get(f"/api/projects/{other['slug']}/experiments").status_code == 404
        # user-only routes refuse tokens
        assert agent.get("/api/projects").status_code == 403
        assert agent.get(f"/api/projects/{project['slug']}/experiments",
                         params={"token": token}).status_code == 401


def test_revoked_token_gets_401_on_its_next_request_while_another_stays_valid(
    app: Any, client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    old = client.post(f"/api/projects/{slug}/tokens", json={"name": "old"}).json()
    new = client.post(f"/api/projects/{slug}/tokens", json={"name": "new"}).json()
    with TestClient(app) as agent:
        for t in (old, new):
            r = agent.get(f"/api/projects/{slug}/experiments", headers={"Authorization": f"Bearer {t['token']}"})
            assert r.status_code == 200
        assert client.delete(f"/api/tokens/{old['id']}").status_code == 200
        r = agent.get(f"/api/projects/{slug}/experiments", headers={"Authorization": f"Bearer {old['token']}"})
        assert r.status_code == 401
        r = agent.get(f"/api/projects/{slug}/experiments", headers={"Authorization": f"Bearer {new['token']}"})
        assert r.status_code == 200


def test_members_cannot_manage_users(app: Any, client: TestClient) -> None:
    r = client.post("/api/users", json={"email": "m@example.test", "password": "member password 1", "role": "member"})
    assert r.status_code == 201
    with TestClient(app) as member:
        login(member, "m@example.test", "member password 1")
        assert member.get("/api/users").status_code == 403
        assert member.get("/api/projects").status_code == 200


@pytest.mark.parametrize("password", ["", "short"])
def test_weak_passwords_are_refused(client: TestClient, password: str) -> None:
    r = client.post("/api/users", json={"email": "w@example.test", "password": password})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"][-1] == "password"


def test_cli_creates_project_and_token(database_url: str, db_engine: Any) -> None:
    import os
    import sys

    env = {**os.environ, "PERFLAB_DATABASE_URL": database_url}
    perflab = [sys.executable, "-m", "perflab.cli"]
    # Every project has an owner: with no account to own it, the CLI says how to name one.
    out = subprocess.run([*perflab, "project", "create", "CLI Project"], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "--owner EMAIL" in out.stderr
    make_user()  # the first admin owns what the CLI creates
    make_user("m@example.test", "member password 1", role="member")
    out = subprocess.run([*perflab, "project", "create", "CLI Project"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cli-project" and "owner: admin@example.test" in out.stderr
    out = subprocess.run([*perflab, "project", "create", "Theirs", "--owner", "M@example.test"], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    with db_engine.connect() as conn:
        owners = dict(conn.execute(text(
            "SELECT p.slug, u.email FROM project_member m JOIN project p ON p.id = m.project_id "
            "JOIN \"user\" u ON u.id = m.user_id WHERE m.role = 'owner'")).all())
    assert owners == {"cli-project": "admin@example.test", "theirs": "m@example.test"}
    out = subprocess.run([*perflab, "token", "create", "--project", "cli-project", "--scope", "ingest"],
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("plb_")
    out = subprocess.run([*perflab, "token", "create", "--project", "nope"], env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "no project 'nope'" in out.stderr
    token = subprocess.run([*perflab, "token", "create", "--project", "cli-project"], env=env,
                           capture_output=True, text=True).stdout.strip()
    out = subprocess.run([*perflab, "token", "revoke", token], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and "revoked" in out.stdout
