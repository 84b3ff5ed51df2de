"""Second outside review (issue 21), the account and request edges: Host parsed exactly, the password
change limited, the known-device cookie per device, and project creation that reveals no other project."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, make_user


@pytest.mark.parametrize("host", ["[::1]x", "127.0.0.1:1@evil.example", "localhost:80:80", "localhost:",
                                  "127.0.0.1:8000/evil", "[::1]:x", "localhost.evil.example", "[::1]@evil"])
def test_a_host_with_trailing_noise_is_not_ours(anon: TestClient, host: str) -> None:
    r = anon.get("/api/health", headers={"Host": host})
    assert r.status_code == 400, host
    assert r.json()["error"] == "bad_host"


@pytest.mark.parametrize("host", ["[::1]", "[::1]:8000", "127.0.0.1:8000", "LOCALHOST", "localhost:5173"])
def test_our_host_with_a_port_is_accepted(anon: TestClient, host: str) -> None:
    assert anon.get("/api/health", headers={"Host": host}).status_code == 200


def _login(app: Any, address: str, password: str = ADMIN_PASSWORD, device: str | None = None) -> Any:
    with TestClient(app, base_url="http://testserver", client=(address, 40000),
                    cookies={"perflab_device": device} if device else None) as c:
        return c.post("/api/auth/login", json={"email": ADMIN_EMAIL, "password": password})


@pytest.fixture
def locked_out(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Trips the per-account login limit: afterwards only a known browser gets in."""
    from perflab.ratelimit import account_limiter

    monkeypatch.setattr(account_limiter, "max_misses", 3)

    def lock(app: Any) -> None:
        for i in range(3):
            assert _login(app, f"10.66.0.{i}", "guess").status_code == 401
        assert _login(app, "10.66.1.1").status_code == 429
    return lock


def test_the_known_device_cookie_is_per_browser_and_rotates(app: Any, locked_out: Any) -> None:
    make_user()
    laptop = _login(app, "192.168.1.5").cookies["perflab_device"]
    phone = _login(app, "192.168.1.6").cookies["perflab_device"]
    assert laptop != phone, "two browsers must not share one cookie (it was HMAC(secret, email))"
    again = _login(app, "192.168.1.5", device=laptop).cookies["perflab_device"]
    assert again != laptop, "each login from a browser replaces its cookie"
    locked_out(app)
    assert _login(app, "172.16.0.9", device=again).status_code == 200
    assert _login(app, "172.16.0.9", device=laptop).status_code == 429, "a replaced cookie is no longer known"


def test_a_password_change_forgets_every_other_browser(app: Any, client: TestClient,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    phone = _login(app, "192.168.1.6").cookies["perflab_device"]
    r = client.post("/api/auth/password", json={"current_password": ADMIN_PASSWORD,
                                                 "new_password": ADMIN_PASSWORD + " 2"})
    assert r.status_code == 204
    fresh = r.cookies["perflab_device"]
    from perflab.ratelimit import account_limiter

    monkeypatch.setattr(account_limiter, "max_misses", 3)
    for i in range(3):
        assert _login(app, f"10.66.0.{i}", "guess").status_code == 401
    assert _login(app, "172.16.0.9", ADMIN_PASSWORD + " 2", device=phone).status_code == 429
    assert _login(app, "172.16.0.9", ADMIN_PASSWORD + " 2", device=fresh).status_code == 200


def test_forgetting_devices_revokes_them(app: Any, client: TestClient, locked_out: Any) -> None:
    laptop = _login(app, "192.168.1.5").cookies["perflab_device"]
    assert client.delete("/api/auth/devices").status_code == 204
    locked_out(app)
    assert _login(app, "192.168.1.5", device=laptop).status_code == 429


def test_a_stolen_session_cannot_guess_the_current_password(client: TestClient) -> None:
    for i in range(5):
        r = client.post("/api/auth/password", json={"current_password": f"guess {i}",
                                                     "new_password": "a brand new password"})
        assert r.status_code == 401, r.text
    r = client.post("/api/auth/password", json={"current_password": ADMIN_PASSWORD,
                                                 "new_password": "a brand new password"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "password checks" in r.json()["detail"]


def test_creating_a_project_does_not_refuse_over_a_project_the_caller_cannot_see(
    app: Any, client: TestClient
) -> None:
    from tests.conftest import login

    secret = client.post("/api/projects", json={"name": "Acme merger"}).json()
    assert secret["slug"] == "acme-merger"
    make_user("outsider@example.test", "an outsider password", role="member")
    outsider = login(TestClient(app), "outsider@example.test", "an outsider password")
    for body in ({"name": "Acme merger"}, {"name": "x", "slug": "acme-merger"}):
        r = outsider.post("/api/projects", json=body)
        assert r.status_code == 201, r.text
        assert r.json()["slug"].startswith("acme-merger-") and len(r.json()["slug"]) == len("acme-merger-") + 6
    assert client.get("/api/projects/acme-merger").json()["name"] == "Acme merger"
    # Whoever can see the holder is told plainly.
    mine = outsider.post("/api/projects", json={"name": "mine"}).json()["slug"]
    r = outsider.post("/api/projects", json={"name": "mine"})
    assert r.status_code == 409 and mine in r.json()["detail"]
    assert client.post("/api/projects", json={"name": "x", "slug": mine}).status_code == 409
