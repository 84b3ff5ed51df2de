"""Regression alerts through the API and the server's own delivery loop, against a real HTTP receiver
on loopback: what arrives, signed, retried after a 500, never sent from the request that caused it."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.alerts import delivery

from tests.agent.helpers import agent_argv, agent_env
from tests.conftest import FIXTURES, login, wait_parsed
from tests.trends.test_trend_api import import_run, live_server, wrk_output

__all__ = ["live_server"]  # a fixture, used by name below

CAPTURE = FIXTURES / "captures" / "nginx-proxy-buffers" / "default"


class Receiver:
    """A stdlib HTTP server that records every POST and answers with the next scripted status."""

    def __init__(self, statuses: list[int] | None = None, delay_s: float = 0.0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.statuses = list(statuses or [])
        self.delay_s = delay_s
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                time.sleep(receiver.delay_s)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, n: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        end = time.monotonic() + timeout
        while len(self.requests) < n and time.monotonic() < end:
            time.sleep(0.05)
        assert len(self.requests) >= n, f"{len(self.requests)} requests arrived, expected {n}"
        return self.requests

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delivery, "BACKOFF_S", 0.2)


def add_hook(client: TestClient, slug: str, url: str, events: list[str], fmt: str = "json") -> dict[str, Any]:
    r = client.post(f"/api/projects/{slug}/webhooks", json={"name": "team", "url": url, "events": events,
                                                            "format": fmt})
    assert r.status_code == 201, r.text
    return dict(r.json())


def signed(secret: str, req: dict[str, Any]) -> bool:
    expected = "sha256=" + hmac.new(secret.encode(), req["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(req["headers"]["X-Perflab-Signature"], expected)


def last_delivery(client: TestClient, slug: str, hook_id: int, status: str, timeout: float = 20.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        [hook] = [h for h in client.get(f"/api/projects/{slug}/webhooks").json() if h["id"] == hook_id]
        if hook["last_delivery"] and hook["last_delivery"]["status"] == status or time.monotonic() > end:
            assert hook["last_delivery"] and hook["last_delivery"]["status"] == status, hook
            return dict(hook["last_delivery"])
        time.sleep(0.1)


GATE = {"baseline": "main", "experiments": ["pr-1a2b"], "exit_code": 3,
        "failures": ["requests_per_sec: pr-1a2b is worse than main (-12.0%, 3 runs vs 3)"]}


def test_a_new_change_point_is_announced_once_signed_with_the_secret_shown_once(
        client: TestClient, project: dict[str, Any], receiver: Receiver) -> None:
    slug = project["slug"]
    hook = add_hook(client, slug, receiver.url, ["change_point"])
    assert len(hook["secret"]) == 64
    listed = client.get(f"/api/projects/{slug}/webhooks").json()
    assert "secret" not in listed[0] and listed[0]["last_delivery"] is None
    rng = random.Random(3)
    for i in range(10):  # -25% after the sixth of 10 experiments, 3 runs each, 3% noise
        for _ in range(3):
            level = 10_000 if i < 6 else 7_500
            import_run(client, slug, f"exp-{i + 1:02d}", wrk_output(level * (1 + rng.gauss(0, 0.03)), 180))
    [req] = receiver.wait_for(1)
    body = json.loads(req["body"])
    assert body["event"] == "change_point" and body["project"] == slug
    # Announced as soon as found: while runs arrive, its place can be off by one experiment.
    assert body["data"]["metric"] == "wrk.requests_per_sec" and body["data"]["experiment"] in ("exp-06", "exp-07")
    assert -28 < body["data"]["delta_pct"] < -18 and body["data"]["experiment"] in body["text"]
    assert req["headers"]["X-Perflab-Event"] == "change_point" and signed(hook["secret"], req)
    assert not signed("another secret", req)
    time.sleep(1.5)  # later imports found the same change: nothing more was sent
    assert len(receiver.requests) == 1
    assert last_delivery(client, slug, hook["id"], "delivered")["attempts"] == 1


def test_a_500_is_retried_until_delivered_and_a_dead_receiver_ends_failed(
        client: TestClient, project: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    slug = project["slug"]
    flaky = Receiver(statuses=[500, 200])
    dead = Receiver(statuses=[500] * 10)
    monkeypatch.setattr(delivery, "MAX_ATTEMPTS", 3)
    try:
        ok_hook = add_hook(client, slug, flaky.url, ["gate_failed"], fmt="slack")
        bad_hook = add_hook(client, slug, dead.url, ["gate_failed"])
        r = client.post(f"/api/projects/{slug}/gate-failures", json=GATE)
        assert r.status_code == 202 and r.json() == {"deliveries": 2}
        first, second = flaky.wait_for(2)
        assert first["body"] == second["body"] and first["headers"]["X-Perflab-Delivery"] == \
            second["headers"]["X-Perflab-Delivery"]
        assert json.loads(second["body"]) == {"text": json.loads(second["body"])["text"]}  # Slack's shape
        assert "CI gate failed (exit 3)" in json.loads(second["body"])["text"] and signed(ok_hook["secret"], second)
        d = last_delivery(client, slug, ok_hook["id"], "delivered")
        assert d["attempts"] == 2 and d["response_status"] == 200 and d["last_error"] is None
        dead.wait_for(3)
        d = last_delivery(client, slug, bad_hook["id"], "failed")
        assert d["attempts"] == 3 and d["last_error"] == "HTTP 500 Internal Server Error"
        time.sleep(1.0)
        assert len(dead.requests) == 3  # bounded: no fourth attempt
        history = client.get(f"/api/webhooks/{bad_hook['id']}/deliveries").json()
        assert [h["status"] for h in history] == ["failed"]
    finally:
        flaky.close()
        dead.close()


def test_a_slow_receiver_never_holds_up_the_request(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    slow = Receiver(delay_s=4.0)
    try:
        add_hook(client, slug, slow.url, ["gate_failed"])
        started = time.monotonic()
        assert client.post(f"/api/projects/{slug}/gate-failures", json=GATE).status_code == 202
        assert client.get(f"/api/projects/{slug}").status_code == 200
        assert time.monotonic() - started < 2.0  # the receiver answers after 4 s
        slow.wait_for(1)
    finally:
        slow.close()


def test_a_finding_that_appears_in_an_experiment_is_announced_once(
        client: TestClient, project: dict[str, Any], receiver: Receiver) -> None:
    slug = project["slug"]
    hook = add_hook(client, slug, receiver.url, ["finding"])
    files = [{"name": "wrk.txt", "content": (CAPTURE / "run1" / "wrk.txt").read_text()},
             {"name": "strace-c.txt", "content": (CAPTURE / "run1" / "strace-c.txt").read_text(), "role": "proxy"},
             {"name": "vmstat.txt", "content": (CAPTURE / "run1" / "vmstat.txt").read_text(), "role": "proxy"},
             {"name": "nginx.conf", "content": (CAPTURE / "nginx.conf").read_text(), "role": "proxy"}]
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "default", "label": "r1", "files": files})
    assert r.status_code == 201, r.text
    rules = {f["rule"] for f in client.get(f"/api/runs/{r.json()['run_id']}/findings").json()["findings"]}
    assert rules, "the capture's default run has findings"
    got = receiver.wait_for(len(rules))
    assert {json.loads(g["body"])["data"]["rule"] for g in got} == rules
    assert all(signed(hook["secret"], g) for g in got)
    files[0]["content"] += "\n"  # another run of the same experiment with the same findings: no news
    assert client.post(f"/api/projects/{slug}/imports", json={"experiment": "default", "label": "r2",
                                                              "files": files}).status_code == 201
    time.sleep(1.5)
    assert len(receiver.requests) == len(rules)


@pytest.mark.parametrize("url", ["ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)",
                                 "http://", "example.com/hook", "http://exa mple.com/"])
def test_webhook_urls_must_be_http_or_https(client: TestClient, project: dict[str, Any], url: str) -> None:
    r = client.post(f"/api/projects/{project['slug']}/webhooks",
                    json={"name": "x", "url": url, "events": ["finding"]})
    assert r.status_code == 400 and "http" in r.json()["detail"], r.text


def test_only_owners_manage_webhooks_and_members_report_gates(
        app: Any, client: TestClient, project: dict[str, Any], receiver: Receiver) -> None:
    slug = project["slug"]
    hook = add_hook(client, slug, receiver.url, ["gate_failed"])
    users = {}
    for role in ("member", "viewer"):
        email = f"{role}-alerts@example.test"
        assert client.post("/api/users", json={"email": email, "password": "a long password 12",
                                               "role": "member"}).status_code == 201
        assert client.post(f"/api/projects/{slug}/members", json={"email": email, "role": role}).status_code == 201
        c = TestClient(app, base_url="http://testserver")
        c.__enter__()
        users[role] = login(c, email, "a long password 12")
    try:
        for c in users.values():
            assert c.get(f"/api/projects/{slug}/webhooks").status_code == 403
            assert c.post(f"/api/projects/{slug}/webhooks", json={"name": "x", "url": receiver.url,
                                                                   "events": ["finding"]}).status_code == 403
            assert c.delete(f"/api/webhooks/{hook['id']}").status_code == 403
        assert users["viewer"].post(f"/api/projects/{slug}/gate-failures", json=GATE).status_code == 403
        assert users["member"].post(f"/api/projects/{slug}/gate-failures", json=GATE).status_code == 202
        receiver.wait_for(1)
        assert client.delete(f"/api/webhooks/{hook['id']}").status_code == 204
        assert client.get(f"/api/projects/{slug}/webhooks").json() == []
    finally:
        for c in users.values():
            c.__exit__(None, None, None)


def test_the_ci_gate_that_fails_a_build_fires_the_gate_failed_webhook(
        client: TestClient, project: dict[str, Any], receiver: Receiver, live_server: str) -> None:
    """`perflab-agent compare --fail-on worse` on the capture (default is -47% against direct) exits 3 and
    tells the server, which posts to the project's gate_failed webhook."""
    slug = project["slug"]
    hook = add_hook(client, slug, receiver.url, ["gate_failed"])
    captures = FIXTURES / "captures" / "nginx-proxy-buffers"
    for exp in ("direct", "default"):
        for run in ("run1", "run2", "run3"):
            r = client.post(f"/api/projects/{slug}/imports", json={"experiment": exp, "label": run, "files": [
                {"name": "wrk.txt", "content": (captures / exp / run / "wrk.txt").read_text()}]})
            assert r.status_code == 201, r.text
    token = client.post(f"/api/projects/{slug}/tokens", json={"name": "ci"}).json()["token"]
    argv = agent_argv("compare", "--project", slug, "--baseline", "direct", "default", "--fail-on", "worse",
                      "--metric", "requests_per_sec")
    out = subprocess.run(argv, env=agent_env(live_server, token), capture_output=True, text=True, timeout=120)
    assert out.returncode == 3, out.stderr
    [req] = receiver.wait_for(1)
    body = json.loads(req["body"])
    assert body["event"] == "gate_failed" and body["data"]["baseline"] == "direct"
    assert body["data"]["experiments"] == ["default"] and body["data"]["exit_code"] == 3
    assert "requests_per_sec" in body["data"]["failures"][0] and signed(hook["secret"], req)


def test_a_run_recorded_by_agents_announces_the_change_point_it_completes(
        app: Any, client: TestClient, project: dict[str, Any], agent_token: str, receiver: Receiver) -> None:
    """Five imported experiments at about 10,000 req/s, two at the capture's 5,627: then a run recorded
    through the agent protocol (the capture's default run) is the third after the step."""
    from tests.ingest.test_ingest import AGENT, Agent, _batches, _lines, _run

    slug = project["slug"]
    hook = add_hook(client, slug, receiver.url, ["change_point"])
    rng = random.Random(9)
    for i in range(7):
        for _ in range(3):
            level = 10_000 if i < 5 else 5_627
            import_run(client, slug, f"e-{i}", wrk_output(level * (1 + rng.gauss(0, 0.03)), 180))
    agent = Agent(app, agent_token)
    assert agent.hello().status_code == 200
    run_id = _run(agent)
    assert agent.c.post(f"/api/agent/runs/{run_id}/join",
                        json={"agent_id": AGENT, "role": "proxy", "streams": ["vmstat"]}).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()}).status_code == 200
    t0 = time.time()
    run1 = CAPTURE / "run1"
    batches = (_batches("vmstat", "vmstat", "proxy", run_id, _lines(run1 / "vmstat.txt", t0), 20)
               + _batches("load", "wrk", "loadgen", run_id, _lines(run1 / "wrk.txt", t0), 50))
    assert agent.send(batches).status_code == 200
    wait_parsed(run_id)
    time.sleep(1.0)
    assert receiver.requests == []  # two experiments after the step: nothing to announce yet
    assert agent.c.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).status_code == 200
    assert client.get(f"/api/runs/{run_id}").json()["status"] == "complete"
    [req] = receiver.wait_for(1)
    body = json.loads(req["body"])
    assert body["data"]["experiment"] == "e-5" and body["data"]["delta_pct"] < -35 and signed(hook["secret"], req)
    for _ in range(3):  # the agent polls the run's status: no second announcement
        agent.c.get(f"/api/agent/runs/{run_id}")
    time.sleep(1.0)
    assert len(receiver.requests) == 1
