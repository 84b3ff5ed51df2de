"""Schemathesis against a real server: every route, as an admin, a member and an agent token.

Hostile values come from the schema (positive cases with odd strings, numbers at their limits) and
from its negation (wrong types, missing fields, out-of-range values). Whatever is sent, the server
must answer without a 5xx, within 2 s, and with a body that matches the OpenAPI document. The budget
is fixed (the coverage phase's boundary cases plus EXAMPLES generated ones per route and mode,
derandomized) so the run sends the same ~2,000 requests each time.
"""

from __future__ import annotations

import itertools
import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from tests.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, FIXTURES, _truncate, make_user
from tests.system.harness import Server

EXAMPLES = 3
SLOW_S = 2.0
MEMBER_EMAIL = "member@example.test"
CALLERS = ("admin", "member", "agent")
# Routes that hash or verify a password on purpose (argon2 is slow by design, and they are rate
# limited): they get 2 s plus what two argon2 operations cost on this machine right now.
HASHING = {"/api/auth/login", "/api/auth/password", "/api/users"}
# Routes that wait for news on purpose.
LONG_POLLS = {"/api/agent/poll"}


def _argon2_cost() -> float:
    from perflab import security

    started = time.monotonic()
    security.verify_password(security.hash_password("fuzz budget"), "fuzz budget")
    return time.monotonic() - started


def _openapi() -> dict[str, Any]:
    from perflab.main import create_app

    return dict(create_app().openapi())


schema = schemathesis.openapi.from_dict(_openapi())
schema.config.generation.update(modes=list(GenerationMode), max_examples=EXAMPLES)


def _request(server: Server, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"{server.url}{path}", method=method, data=data,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null"), r.headers


def _session(server: Server, email: str) -> dict[str, str]:
    body, headers = _request(server, "POST", "/api/auth/login", {"email": email, "password": ADMIN_PASSWORD})
    cookie = "; ".join(c.split(";", 1)[0] for c in headers.get_all("Set-Cookie"))
    return {"Cookie": cookie, "X-CSRF-Token": body["csrf_token"]}


@pytest.fixture(scope="module")
def world(engine: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with one project holding a real imported run, and the three callers' credentials."""
    from perflab import db

    db.set_engine(engine)
    make_user()
    make_user(MEMBER_EMAIL, ADMIN_PASSWORD, role="member")
    server = Server(engine.url.render_as_string(hide_password=False), tmp_path_factory.mktemp("fuzz"))
    server.start()
    try:
        admin = _session(server, ADMIN_EMAIL)
        member = _session(server, MEMBER_EMAIL)
        project, _ = _request(server, "POST", "/api/projects", {"name": "fuzz"}, admin)
        token, _ = _request(server, "POST", f"/api/projects/{project['slug']}/tokens", {"name": "fuzz"}, admin)
        vmstat = next((FIXTURES / "vmstat").glob("*.txt")).read_text()
        run, _ = _request(server, "POST", f"/api/projects/{project['slug']}/imports",
                          {"experiment": "baseline", "files": [{"name": "vmstat.txt", "content": vmstat}]}, admin)
        yield {
            "server": server,
            "callers": {
                "admin": admin,
                "member": member,
                "agent": {"Authorization": f"Bearer {token['token']}"},
            },
            "ids": {"slug": project["slug"], "run_id": run["run_id"], "experiment_id": run["experiment_id"]},
        }
    finally:
        server.stop()
        _truncate(engine)


_turns = itertools.count()


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
def test_no_request_breaks_the_server(case: Any, world: dict[str, Any]) -> None:
    # Callers take turns case by case: the coverage phase yields dozens of boundary cases per
    # route, so each caller meets every route, at a third of the cost of sending each case three times.
    callers = world["callers"]
    name = CALLERS[next(_turns) % len(CALLERS)]
    if case.path == "/api/auth/logout":
        name = "agent"  # a session caller would end the session the other cases use
    headers = callers[name]
    if name != "member":
        # The admin and the agent aim at objects that exist; the member keeps the generated ids.
        for key, value in world["ids"].items():
            if case.path_parameters and key in case.path_parameters:
                case.path_parameters[key] = value
    if case.path in LONG_POLLS:
        # A long poll waits up to `timeout` s for news by design (25 by default): asked to wait 0, it
        # answers at once, and its other parameters are still fuzzed. A timeout that is not a number
        # is kept: it is refused at once.
        query = case.query if case.query is not None else {}
        try:
            float(query.get("timeout", 0))
            query["timeout"] = "0"
        except (TypeError, ValueError):
            pass
        case.query = query
    started = time.monotonic()
    response = case.call(base_url=world["server"].url, headers=headers, timeout=30)
    took = time.monotonic() - started
    try:
        case.validate_response(
            response, checks=[not_a_server_error, response_schema_conformance, content_type_conformance],
            headers=headers,
        )
    except Exception as exc:
        # The server's traceback is what the fix needs; it lives in the server's log.
        log = world["server"].log.read_text(errors="replace")[-4000:]
        raise AssertionError(f"as {name}: {exc}\n--- server log ---\n{log}") from exc
    budget = SLOW_S + (_argon2_cost() if case.path in HASHING and took >= SLOW_S else 0.0)
    assert took < budget, f"{case.method} {case.formatted_path} as {name} took {took:.2f} s"


def test_the_fuzzer_sees_every_route() -> None:
    from perflab.main import create_app

    from tests.backend.test_auth import iter_api_routes

    routes = {r.path for r in iter_api_routes(create_app().routes) if r.include_in_schema}
    fuzzed = {op.ok().path for op in schema.get_all_operations()}
    assert routes <= fuzzed
    assert len(fuzzed) > 50
