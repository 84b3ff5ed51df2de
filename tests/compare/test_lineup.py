"""Agent runs and imported runs line up (issue 19, item 1): an experiment recorded by the agent
(`--role proxy`, config snapshot /etc/nginx/nginx.conf) compared with one imported from files (default
role "target", nginx.conf) gets telemetry, one syscall table and a config diff once the import's roles
are renamed; the project's known roles are what the Import page offers. Also edits carry versions."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import CAPTURE, load_with_testclient


def _import(client: TestClient, slug: str, exp: str, role: str | None = None) -> dict[str, Any]:
    run = CAPTURE / exp / "run1"
    files = [{"name": f, "content": (run / f).read_text()} for f in ("wrk.txt", "vmstat.txt", "strace-c.txt")]
    files.append({"name": "nginx.conf", "content": (CAPTURE / exp / "nginx.conf").read_text()})
    if role:
        for f in files[1:]:
            f["role"] = role
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": exp, "label": "imported", "files": files})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_an_agent_experiment_and_an_imported_one_line_up(
    app: Any, client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    load_with_testclient(app, client, slug, experiments=("default",), config_name="/etc/nginx/nginx.conf")
    # What the Import page offers for every file: the roles the agent runs use, most used first.
    assert client.get(f"/api/projects/{slug}/roles").json() == ["loadgen", "proxy"]  # 3 runs each: by name

    imported = _import(client, slug, "buffers-4x128k")  # every non-wrk file defaults to "target"
    params = {"baseline": "default", "experiments": ["buffers-4x128k"]}
    before = client.get(f"/api/projects/{slug}/compare", params=params).json()
    assert len(before["syscalls"]) == 2  # the issue: proxy/nginx and target/all, each half empty

    # Rename the import's roles afterwards, as on its run page.
    r = client.patch(f"/api/runs/{imported['run_id']}", json={"roles": {"target": "proxy"}})
    assert r.status_code == 200, r.text
    detail = client.get(f"/api/runs/{imported['run_id']}").json()
    assert {s["role"] for s in detail["streams"]} == {"loadgen", "proxy"}
    assert {s["role"] for s in detail["summaries"]} == {"loadgen", "proxy"}

    doc = client.get(f"/api/projects/{slug}/compare", params=params).json()
    [table] = doc["syscalls"]
    assert (table["role"], table["process"]) == ("proxy", "nginx")
    assert table["totals"]["default"]["n"] == 3 and table["totals"]["buffers-4x128k"]["n"] == 1
    proxy = next(t for t in doc["telemetry"] if t["role"] == "proxy")
    sy = next(row for row in proxy["rows"] if (row["source"], row["metric"]) == ("vmstat", "sy"))
    assert all(sy["cells"][e]["median"] is not None for e in ("default", "buffers-4x128k")), sy
    [changes] = doc["changes"]
    conf = next(f for f in changes["files"] if f["kind"] == "config")
    # /etc/nginx/nginx.conf (agent) and nginx.conf (import) are one file, diffed, not added + removed.
    assert conf["status"] == "changed" and "proxy_buffers" in conf["diff"]
    assert any(k["knob"] == "proxy_buffers" for k in changes["knob_changes"])


def test_roles_renamed_to_an_existing_one_or_with_bad_names_are_refused(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    run = _import(client, slug, "default")["run_id"]
    r = client.patch(f"/api/runs/{run}", json={"roles": {"target": "loadgen"}})
    assert r.status_code == 400 and "cannot share a role" in r.json()["detail"]
    r = client.patch(f"/api/runs/{run}", json={"roles": {"proxy": "x"}})
    assert r.status_code == 400 and "has no host with role 'proxy'" in r.json()["detail"]
    r = client.patch(f"/api/runs/{run}", json={"roles": {"target": "no spaces"}})
    assert r.status_code == 400 and "letters, digits" in r.json()["detail"]
    # Swapping two roles works.
    assert client.patch(f"/api/runs/{run}", json={"roles": {"target": "loadgen", "loadgen": "target"}}
                        ).status_code == 200
    roles = {s["kind"]: s["role"] for s in client.get(f"/api/runs/{run}").json()["summaries"]}
    assert roles["wrk"] == "target" and roles["strace-c"] == "loadgen"


def test_a_stale_edit_is_refused_with_a_conflict_that_says_what_happened(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    exp = client.post(f"/api/projects/{slug}/experiments", json={"name": "default"}).json()
    assert exp["version"] == 1
    first = client.patch(f"/api/experiments/{exp['id']}", json={"hypothesis": "bigger buffers", "version": 1})
    assert first.status_code == 200 and first.json()["version"] == 2
    stale = client.patch(f"/api/experiments/{exp['id']}", json={"hypothesis": "keepalive", "version": 1})
    assert stale.status_code == 409
    assert "changed by someone else since you opened it" in stale.json()["detail"]
    assert client.get(f"/api/experiments/{exp['id']}").json()["hypothesis"] == "bigger buffers"
    # Without a version (scripts, the CLI) an edit still applies and bumps it.
    assert client.patch(f"/api/experiments/{exp['id']}", json={"tags": ["x"]}).json()["version"] == 3

    note = client.post(f"/api/projects/{slug}/notes", json={"body_md": "a", "experiment_id": exp["id"]}).json()
    assert client.patch(f"/api/notes/{note['id']}", json={"body_md": "b", "version": 1}).status_code == 200
    assert client.patch(f"/api/notes/{note['id']}", json={"body_md": "c", "version": 1}).status_code == 409
    decision = client.post(f"/api/projects/{slug}/decisions",
                           json={"experiment_id": exp["id"], "knob": "proxy_buffers"}).json()
    assert client.patch(f"/api/decisions/{decision['id']}", json={"status": "adopted", "version": 1}
                        ).status_code == 200
    assert client.patch(f"/api/decisions/{decision['id']}", json={"status": "rejected", "version": 1}
                        ).status_code == 409


def test_a_profile_of_nanosecond_periods_uploaded_as_samples_is_flagged_and_its_unit_corrected(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    run = _import(client, slug, "default")["run_id"]
    folded = b"nginx;ngx_process_events;epoll_wait 3798798795\nnginx;ngx_http_handler;writev 1001001000\n"
    r = client.post(f"/api/runs/{run}/profiles", content=folded, params={"unit": "samples", "name": "periods"},
                    headers={"Content-Type": "application/octet-stream"})
    assert r.status_code == 201, r.text
    assert any("look like sampling periods" in w for w in r.json()["warnings"])  # said at upload time
    pid = r.json()["profile_id"]
    fixed = client.patch(f"/api/profiles/{pid}", json={"unit": "nanoseconds"})
    assert fixed.status_code == 200, fixed.text
    assert fixed.json()["unit"] == "nanoseconds" and fixed.json()["warnings"] == []
    assert client.patch(f"/api/profiles/{pid}", json={"unit": "no;pe"}).status_code == 422


def test_the_poll_tells_daemons_how_long_a_wrk_load_lasts() -> None:
    from perflab.runs.load import load_seconds

    assert load_seconds("wrk -t 2 -c 100 -d 10s --latency http://x/") == 10.0
    assert load_seconds("/usr/bin/wrk2 -R 1000 --duration=2m http://x/") == 120.0
    assert load_seconds("wrk -d4 http://x/") == 4.0
    assert load_seconds("wrk http://x/") == 10.0  # wrk's default
    assert load_seconds("ab -n 1000 http://x/") is None
    assert load_seconds("wrk 'unbalanced") is None
