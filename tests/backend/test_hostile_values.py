"""Odd but possible values get a 4xx naming the field, never a 500 (issue 9: 386 tracebacks in one log).

PostgreSQL refuses NUL in text and jsonb and has 64-bit integers at most; JSON bodies may carry NaN,
Infinity and huge numbers. The rules live in perflab/schemas_base.py: every request body derives
from RequestModel and one app-wide guard checks every query and path value by its declared type.
"""

from __future__ import annotations

import json
import re
import typing
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from tests.backend.test_auth import iter_api_routes

HUGE = 2**70
NUL = "\x00"


def _body_models(app: Any) -> set[type[BaseModel]]:
    found: set[type[BaseModel]] = set()

    def walk(tp: Any) -> None:
        if isinstance(tp, type) and issubclass(tp, BaseModel) and tp not in found:
            found.add(tp)
            for f in tp.model_fields.values():
                walk(f.annotation)
        for arg in typing.get_args(tp):
            walk(arg)

    for route in iter_api_routes(app.routes):
        pending = [route.dependant]
        while pending:
            dep = pending.pop()
            pending.extend(dep.dependencies)
            for param in dep.body_params:
                walk(param.field_info.annotation)
    return found


def test_every_request_body_model_derives_from_the_safe_base(app: Any) -> None:
    from perflab.schemas_base import RequestModel

    models = _body_models(app)
    assert len(models) > 20, "the walk found the request schemas"
    unsafe = sorted(m.__qualname__ for m in models if not issubclass(m, RequestModel))
    assert not unsafe, f"request bodies not derived from schemas_base.RequestModel: {unsafe}"


def _hostile_query_values(annotation: str) -> list[str]:
    if "float" in annotation:
        return ["nan", "inf", "-Infinity", "1e300"]
    if "int" in annotation:
        return [str(HUGE), str(-HUGE)]
    if "str" in annotation:
        return [f"a{NUL}b"]
    return []


def test_every_query_parameter_refuses_nul_nan_infinity_and_huge_numbers(app: Any, client: TestClient) -> None:
    """Walks every route: each hostile value of each query parameter gets a 422 naming it."""
    tried = 0
    for route in iter_api_routes(app.routes):
        method = min(route.methods)
        path = re.sub(r"\{[^}]+\}", "1", route.path)
        pending = [route.dependant]
        while pending:
            dep = pending.pop()
            pending.extend(dep.dependencies)
            for param in dep.query_params:
                for value in _hostile_query_values(str(param.field_info.annotation)):
                    r = client.request(method, path, params={param.alias: value})
                    tried += 1
                    assert r.status_code == 422, (route.path, param.alias, value, r.status_code, r.text)
                    assert param.alias in json.dumps(r.json()), (route.path, param.alias, r.text)
    assert tried > 80


@pytest.mark.parametrize("path", [
    "/api/share/pls_doesnotmatter/overlay", "/api/projects/p/compare/overlay", "/api/comparisons/abc/overlay",
])
def test_overlay_time_windows_refuse_nan_even_on_the_public_share_link(anon: TestClient, client: TestClient,
                                                                        path: str) -> None:
    caller = anon if path.startswith("/api/share/") else client
    r = caller.get(path, params={"role": "proxy", "metric": "vmstat.sy", "t_start_s": "nan"})
    assert r.status_code == 422, r.text
    assert "t_start_s" in r.text


def test_a_nul_in_a_path_value_is_a_422(client: TestClient) -> None:
    r = client.get("/api/projects/a%00b")
    assert r.status_code == 422, r.text


def test_page_1e19_is_refused_with_the_field_named(client: TestClient, project: dict[str, Any]) -> None:
    for value in ("10000000000000000000", "9000000000000000000"):
        r = client.get(f"/api/projects/{project['slug']}/experiments", params={"page": value})
        assert r.status_code == 422, r.text
        assert "page" in r.text


def test_login_with_a_nul_in_the_email_is_a_422(anon: TestClient) -> None:
    r = anon.post("/api/auth/login", json={"email": f"admin{NUL}@example.test", "password": "x" * 12})
    assert r.status_code == 422, r.text
    assert "email" in r.text and "NUL" in r.text


def test_user_facing_text_fields_refuse_nul(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    assert client.post("/api/projects", json={"name": f"x{NUL}"}).status_code == 422
    r = client.post(f"/api/projects/{slug}/experiments", json={"name": "e1", "hypothesis": f"h{NUL}"})
    assert r.status_code == 422, r.text
    # In plain words, naming the field: no "Value error, ", no escaped "\u0000".
    assert r.json()["detail"] == [{
        "loc": ["body", "hypothesis"], "type": "unstorable_value",
        "msg": "the field hypothesis contains a NUL character (\\0), which perflab cannot store as text"}]
    r = client.post(f"/api/projects/{slug}/notes", json={"body_md": f"a{NUL}"})
    assert r.status_code == 422 and "the field body (Markdown) contains a NUL character" in r.text, r.text
    r = client.post(f"/api/projects/{slug}/tokens", json={"name": f"t{NUL}"})
    assert r.status_code == 422 and "name" in r.text, r.text


def _raw(client: TestClient, url: str, text: str, token: str) -> Any:
    # json.dumps would refuse NaN with allow_nan=False; agents (and attackers) can still send it.
    return client.post(url, content=text.encode(), headers={"Authorization": f"Bearer {token}",
                                                            "Content-Type": "application/json"})


@pytest.fixture
def agent(anon: TestClient, agent_token: str) -> dict[str, Any]:
    hello = {"agent_id": "agent-0001", "hostname": "proxy-1", "role": "proxy"}
    r = anon.post("/api/agent/hello", json=hello, headers={"Authorization": f"Bearer {agent_token}"})
    assert r.status_code == 200, r.text
    run_id = str(uuid.uuid4())
    r = anon.post("/api/agent/runs", json={"run_id": run_id, "experiment": "e", "wait_for_roles": []},
                  headers={"Authorization": f"Bearer {agent_token}"})
    assert r.status_code == 201, r.text
    return {"token": agent_token, "run_id": run_id}


@pytest.mark.parametrize(("route", "body", "field"), [
    ("/api/agent/hello", '{"agent_id": "agent-0001", "hostname": "p\\u0000", "role": "proxy"}', "hostname"),
    ("/api/agent/hello", '{"agent_id": "agent-0001", "hostname": "p", "role": "proxy", "facts": {"k": NaN}}',
     "facts"),
    ("/api/agent/hello", '{"agent_id": "agent-0001", "hostname": "p", "role": "proxy", "facts": {"a\\u0000": 1}}',
     "facts"),
    ("/api/agent/heartbeat", '{"agent_id": "agent-0001", "clock_offset_s": NaN}', "clock_offset_s"),
    ("/api/agent/heartbeat", '{"agent_id": "agent-0001", "spool_bytes": 9223372036854775808}', "spool_bytes"),
    ("/api/agent/runs/{run}/start", '{"started_at": NaN}', "started_at"),
    ("/api/agent/runs/{run}/start", '{"started_at": 1e20}', "started_at"),
    ("/api/agent/runs/{run}/finish", '{"ended_at": Infinity}', "ended_at"),
    ("/api/agent/runs/{run}/finish", '{"exit_code": 1180591620717411303424}', "exit_code"),
    ("/api/agent/runs", '{"run_id": "00000000-0000-4000-8000-00000000000a", "experiment": "e\\u0000"}',
     "experiment"),
    ("/api/ingest/batches", ('{"agent_id": "agent-0001", "batches": [{"run_id": "{run}", "stream": "vmstat", '
     '"source": "vmstat", "role": "proxy", "seq": 9223372036854775808, "lines": []}]}'), "seq"),
    ("/api/ingest/batches", ('{"agent_id": "agent-0001", "batches": [{"run_id": "{run}", "stream": "vmstat", '
     '"source": "vmstat", "role": "proxy", "seq": 1, "dropped": 9223372036854775808, "lines": []}]}'), "dropped"),
    ("/api/ingest/batches", ('{"agent_id": "agent-0001", "batches": [{"run_id": "{run}", "stream": "vmstat", '
     '"source": "vmstat", "role": "proxy", "seq": 1, "lines": [[NaN, 1.0, "x"]]}]}'), "lines"),
    ("/api/ingest/batches", ('{"agent_id": "agent-0001", "batches": [{"run_id": "{run}", "stream": "vmstat", '
     '"source": "vmstat", "role": "proxy", "seq": 1, "lines": [[1e20, 1.0, "x"]]}]}'), "lines"),
])
def test_agent_protocol_refuses_values_postgres_cannot_store(anon: TestClient, agent: dict[str, Any], route: str,
                                                             body: str, field: str) -> None:
    url = route.replace("{run}", agent["run_id"])
    r = _raw(anon, url, body.replace("{run}", agent["run_id"]), agent["token"])
    assert r.status_code == 422, (url, r.status_code, r.text)
    assert field in r.text, r.text


def test_a_nul_inside_captured_output_is_stored_as_a_replacement_character(anon: TestClient, db_engine: Any,
                                                                           agent: dict[str, Any]) -> None:
    from perflab.ingest.pipeline import decode_lines
    from sqlalchemy import text

    batch = {"run_id": agent["run_id"], "stream": "load", "source": "load", "role": "loadgen", "seq": 1,
             "lines": [[1.7e9, 1.0, f"odd{NUL}output"]]}
    r = anon.post("/api/ingest/batches", json={"agent_id": "agent-0001", "batches": [batch]},
                  headers={"Authorization": f"Bearer {agent['token']}"})
    assert r.status_code == 200, r.text
    with db_engine.connect() as conn:
        data = conn.execute(text("SELECT data_gz FROM raw_chunk")).scalar_one()
    assert [line for _, _, line in decode_lines(data)] == ["odd\ufffdoutput"]
