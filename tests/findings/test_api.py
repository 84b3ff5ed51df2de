"""Findings through the product: import each investigation's raw outputs as one run per experiment (the
Import API, real PostgreSQL), then read `GET /api/runs/{id}/findings`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from .helpers import CAPTURE, SCENARIOS


def _file(path: Path, role: str | None = None, kind: str = "auto", name: str | None = None) -> dict[str, Any]:
    f: dict[str, Any] = {"name": name or path.name, "content": path.read_text(encoding="utf-8"), "kind": kind}
    if role:
        f["role"] = role
    return f


def _import(client: TestClient, slug: str, experiment: str, files: list[dict[str, Any]]) -> str:
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": experiment, "files": files})
    assert r.status_code == 201, r.text
    return str(r.json()["run_id"])


def _capture_files(experiment: str, run: str = "run1") -> list[dict[str, Any]]:
    d = CAPTURE / experiment
    files = [_file(d / run / "wrk.txt"), _file(d / run / "vmstat.txt", "proxy"),
             _file(d / run / "strace-c.txt", "proxy")]
    if (d / "nginx.conf").exists():
        files.append(_file(d / "nginx.conf", "proxy"))
    return files


def _findings(client: TestClient, run_id: str) -> list[dict[str, Any]]:
    r = client.get(f"/api/runs/{run_id}/findings")
    assert r.status_code == 200, r.text
    return list(r.json()["findings"])


def test_import_accepts_nginx_conf_as_a_config_snapshot(client: TestClient, project: dict[str, Any]) -> None:
    conf = CAPTURE / "buffers-4x128k" / "nginx.conf"
    r = client.post(f"/api/projects/{project['slug']}/imports/preview", json={"files": [_file(conf, "proxy")]})
    assert r.status_code == 200, r.text
    f = r.json()["files"][0]
    assert f["ok"] and f["kind"] == "config" and f["preview"]["format"] == "nginx"


def test_proxy_buffers_investigation_names_proxy_buffers_and_stays_silent_on_direct(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    direct = _import(client, slug, "direct", _capture_files("direct"))
    default = _import(client, slug, "default", _capture_files("default"))
    fixed = _import(client, slug, "buffers-4x128k", _capture_files("buffers-4x128k"))

    assert [f for f in _findings(client, direct) if f["severity"] != "info"] == []
    found = _findings(client, default)
    copy = next(f for f in found if f["rule"] == "copy-bound-proxy")
    # the nginx.conf snapshot of `default` has no proxy_buffers line: nginx's default is named
    assert copy["suggestion"] == {"component": "nginx", "knob": "proxy_buffers", "from": "8 4k (default)",
                                  "to": "4 128k"}
    sy = next(e for e in copy["evidence"] if e["kind"] == "series")
    assert sy["ref"]["role"] == "proxy" and sy["ref"]["metric"] == "sy"
    assert copy["experiment"] == "default" and copy["run_id"] == default
    assert "copy-bound-proxy" not in {f["rule"] for f in _findings(client, fixed)}


def test_listen_backlog_investigation(client: TestClient, project: dict[str, Any]) -> None:
    d = SCENARIOS / "listen-backlog"
    run = _import(client, project["slug"], "backlog 8", [
        _file(d / "ss-ltnp.txt", "upstream"), _file(d / "netstat-s.txt", "upstream"),
        _file(d / "sysctl.txt", "upstream")])
    f = next(f for f in _findings(client, run) if f["rule"] == "listen-overflow")
    assert f["suggestion"]["knob"] == "listen backlog" and f["suggestion"]["from"] == "8"
    assert any(e["kind"] == "listener" and e["value"] == "Recv-Q 9 at Send-Q 8" for e in f["evidence"])


def test_port_range_investigation(client: TestClient, project: dict[str, Any]) -> None:
    d = SCENARIOS / "port-range"
    run = _import(client, project["slug"], "51 ports", [_file(d / "ss-s.txt", "loadgen"),
                                                       _file(d / "sysctl.txt", "loadgen")])
    f = next(f for f in _findings(client, run) if f["rule"] == "timewait-ports")
    assert f["suggestion"]["knob"] == "net.ipv4.ip_local_port_range"


def test_conntrack_investigation(client: TestClient, project: dict[str, Any]) -> None:
    run = _import(client, project["slug"], "conntrack", [_file(SCENARIOS / "conntrack" / "dmesg.txt", "proxy")])
    f = next(f for f in _findings(client, run) if f["rule"] == "conntrack-full")
    log = next(e for e in f["evidence"] if e["kind"] == "log")
    assert log["ref"]["line"] == 1 and "table full" in log["ref"]["text"]


def test_findings_of_an_unknown_run_is_404(client: TestClient) -> None:
    r = client.get("/api/runs/00000000-0000-0000-0000-000000000000/findings")
    assert r.status_code == 404
    assert client.get("/api/runs/not-a-uuid/findings").status_code == 400


def test_comparison_carries_findings_per_experiment_with_what_changed(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    for exp in ("direct", "default", "buffers-4x128k"):
        for run in ("run1", "run2"):
            _import(client, slug, exp, _capture_files(exp, run))
    r = client.get(f"/api/projects/{slug}/compare",
                   params={"baseline": "direct", "experiments": ["default", "buffers-4x128k"]})
    assert r.status_code == 200, r.text
    by_exp = {e["experiment"]: e for e in r.json()["findings"]}
    assert [e["experiment"] for e in r.json()["findings"]] == ["direct", "default", "buffers-4x128k"]
    assert [f for f in by_exp["direct"]["findings"] if f["severity"] != "info"] == []
    copy = next(f for f in by_exp["default"]["findings"] if f["rule"] == "copy-bound-proxy")
    assert copy["runs"] == 2 and copy["of_runs"] == 2 and copy["suggestion"]["knob"] == "proxy_buffers"
    # the story of the investigation: the copy-bound finding appears with nginx and goes with big buffers
    assert "copy-bound-proxy" in by_exp["default"]["appeared"]
    assert "copy-bound-proxy" not in by_exp["buffers-4x128k"]["appeared"]

    md = client.get(f"/api/projects/{slug}/compare/markdown",
                    params={"baseline": "direct", "experiments": ["default", "buffers-4x128k"]})
    assert md.status_code == 200, md.text
    assert "Findings:" in md.text and "`proxy_buffers` 8 4k (default) → 4 128k (2 of 2 runs)" in md.text


def test_run_show_prints_findings_and_carries_them_in_json(
    client: TestClient, project: dict[str, Any], capsys: Any
) -> None:
    import json

    from perflab.cli import main

    run = _import(client, project["slug"], "default", _capture_files("default"))
    assert main(["run", "show", run, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [f["rule"] for f in shown["findings"]] == ["copy-bound-proxy"]
    assert main(["run", "show", run]) == 0
    text = capsys.readouterr().out
    assert "[warning] sy is 8" in text and "-> proxy_buffers: 8 4k (default) -> 4 128k" in text
    assert "readv: 31,776 calls, 22.03% of syscall time" in text
