"""A config snapshot's parsed form is stored with it when it is stored (at import, and when an agent sends one);
comparisons, public share views and findings read that form instead of parsing the text on every read (issue 21:
a nested config cost each viewer seconds per page load). Snapshots stored before forms existed get theirs built
on their first read, and kept."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from perflab.compare import configs
from sqlalchemy import text

from tests.configs.test_nginx_nesting import NESTED
from tests.conftest import FIXTURES

CAPTURE = FIXTURES / "captures" / "nginx-proxy-buffers"
DEFAULT_CONF = (CAPTURE / "default" / "nginx.conf").read_text()
TUNED_CONF = (CAPTURE / "buffers-4x128k" / "nginx.conf").read_text()
LOCATION = "http > server > location /"


def _import(client: TestClient, slug: str, experiment: str, conf: str) -> str:
    wrk = (CAPTURE / experiment / "run1" / "wrk.txt").read_text()
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": experiment, "label": "run1", "files": [
        {"name": "wrk.txt", "content": wrk}, {"name": "nginx.conf", "content": conf, "role": "proxy"}]})
    assert r.status_code == 201, r.text
    return str(r.json()["run_id"])


def _form(session: Any, run_id: str, kind: str = "config") -> Any:
    session.rollback()  # a fresh snapshot of what the requests committed
    return session.execute(text("SELECT parsed FROM artifact WHERE run_id = :r AND kind = :k"),
                           {"r": run_id, "k": kind}).scalar_one()


def _knobs(client: TestClient, slug: str) -> list[tuple[str, str, str, str]]:
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "default", "experiments": ["buffers-4x128k"]})
    assert r.status_code == 200, r.text
    return [(k["context"], k["knob"], k["before"], k["after"]) for k in r.json()["changes"][0]["knob_changes"]]


def _from_raw_files() -> list[tuple[str, str, str, str]]:
    return [(k.context, k.knob, k.before, k.after)
            for k in configs.knob_changes(DEFAULT_CONF, TUNED_CONF, file="nginx.conf", kind="config")]


def _set_form(session: Any, run_id: str, form: dict[str, Any] | None) -> None:
    import json

    session.execute(text("UPDATE artifact SET parsed = CAST(:f AS jsonb) WHERE run_id = :r AND kind = 'config'"),
                    {"f": None if form is None else json.dumps(form), "r": run_id})
    session.commit()


def _share(client: TestClient, app: Any, slug: str) -> tuple[TestClient, str]:
    """An anonymous visitor of a public share link of the comparison, and the link's token."""
    r = client.post(f"/api/projects/{slug}/comparisons", json={
        "baseline": "default", "experiments": ["buffers-4x128k"], "title": "buffers", "view_state": {}})
    assert r.status_code == 201, r.text
    r = client.post(f"/api/comparisons/{r.json()['short_id']}/share-links", json={})
    assert r.status_code == 201, r.text
    return TestClient(app, base_url="http://testserver"), r.json()["token"]


def _shared_knobs(visitor: tuple[TestClient, str]) -> list[tuple[str, str, str, str]]:
    anon, token = visitor
    r = anon.get(f"/api/share/{token}")
    assert r.status_code == 200, r.text
    return [(k["context"], k["knob"], k["before"], k["after"])
            for k in r.json()["compare"]["changes"][0]["knob_changes"]]


def test_an_imported_config_is_stored_parsed_and_compare_and_share_read_that_form(
    app: Any, client: TestClient, project: dict[str, Any], session: Any
) -> None:
    slug = project["slug"]
    _import(client, slug, "default", DEFAULT_CONF)
    tuned = _import(client, slug, "buffers-4x128k", TUNED_CONF)
    form = _form(session, tuned)
    # Filled at import, and what the parser makes of the raw file.
    assert form == configs.parsed_form(TUNED_CONF, kind="config")
    assert form["format"] == "nginx" and [LOCATION, "proxy_buffers", "4 128k"] in form["directives"]
    assert _knobs(client, slug) == _from_raw_files() == [(LOCATION, "proxy_buffers", "8 4k (default)", "4 128k")]
    anon = _share(client, app, slug)
    assert _shared_knobs(anon) == _from_raw_files()
    # Reads take the stored form, not the text: a stored form saying otherwise is what the pages show.
    altered = {**form, "directives": [[c, n, "2 256k" if n == "proxy_buffers" else v] for c, n, v in form["directives"]]}
    _set_form(session, tuned, altered)
    assert _knobs(client, slug) == [(LOCATION, "proxy_buffers", "8 4k (default)", "2 256k")]
    assert _shared_knobs(anon) == [(LOCATION, "proxy_buffers", "8 4k (default)", "2 256k")]


def test_a_snapshot_stored_before_forms_gets_its_form_built_on_first_read_and_kept(
    app: Any, client: TestClient, project: dict[str, Any], session: Any
) -> None:
    slug = project["slug"]
    base = _import(client, slug, "default", DEFAULT_CONF)
    tuned = _import(client, slug, "buffers-4x128k", TUNED_CONF)
    anon = _share(client, app, slug)
    for run in (base, tuned):
        _set_form(session, run, None)  # as the migration leaves every snapshot stored before it
    # The anonymous share view is the first read: it builds both forms and they are kept.
    assert _shared_knobs(anon) == _from_raw_files()
    assert _form(session, base) == configs.parsed_form(DEFAULT_CONF, kind="config")
    assert _form(session, tuned) == configs.parsed_form(TUNED_CONF, kind="config")
    # A form of an older parse is built again, once.
    _set_form(session, tuned, {"v": 0, "format": "nginx", "directives": []})
    assert _knobs(client, slug) == _from_raw_files()
    assert _form(session, tuned) == configs.parsed_form(TUNED_CONF, kind="config")


def test_a_snapshot_sent_by_an_agent_is_stored_parsed_a_nested_one_with_why_it_is_not_read(
    client: TestClient, project: dict[str, Any], agent_token: str, session: Any
) -> None:
    slug = project["slug"]
    _import(client, slug, "default", DEFAULT_CONF)
    run = _import(client, slug, "buffers-4x128k", TUNED_CONF)
    agent = TestClient(client.app, base_url="http://testserver")
    agent.headers["Authorization"] = f"Bearer {agent_token}"

    def send(kind: str, name: str, body: str) -> None:
        r = agent.post(f"/api/agent/runs/{run}/artifacts", params={"kind": kind, "name": name, "role": "proxy"},
                       content=body.encode())
        assert r.status_code == 201, r.text

    sysctl = "net.core.somaxconn = 4096\nnet.ipv4.tcp_tw_reuse = 1\n"
    send("sysctl", "sysctl.txt", sysctl)
    form = _form(session, run, "sysctl")
    assert form == configs.parsed_form(sysctl, kind="sysctl")
    assert form["format"] == "key-value" and ["", "net.core.somaxconn", "4096"] in form["directives"]
    session.execute(text("DELETE FROM artifact WHERE run_id = :r AND kind = 'config'"), {"r": run})
    session.commit()
    send("config", "_etc_nginx_nginx.conf", NESTED)
    form = _form(session, run)
    assert form["format"] == "nginx" and f"more than {configs.MAX_NESTING} deep" in form["error"]
    # The comparison diffs the text and names no knob of a config it cannot read.
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "default", "experiments": ["buffers-4x128k"]})
    assert r.status_code == 200, r.text
    assert r.json()["changes"][0]["knob_changes"] == []
