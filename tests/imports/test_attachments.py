"""An import keeps what it can read: files (or parts of a paste) no parser knows become attachments of the
run with a note, downloadable; only an import where nothing at all is read is refused, naming each problem.
nginx.conf is a config snapshot whose log_format reads the access log beside it; cgroup files, nproc and
lscpu become the run's host facts, read by the rules like an agent's."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES

RUN1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"
HOST = FIXTURES / "host-facts" / "files"
REUSE = FIXTURES / "findings" / "reuseport"
AFFINITY = FIXTURES / "findings" / "worker-affinity"
CLIENT_LOG = ("2026-11-25T10:01:02.114Z INFO client: fetched /server.pcap in 1.02s (3602590 bytes)\n"
              "2026-11-25T10:01:02.301Z WARN client: retry 1 after timeout\n")
TRANSCRIPT = "$ ip route\n" + (HOST / "ip_route.txt").read_text()


def _import(client: TestClient, slug: str, files: list[dict[str, Any]], experiment: str = "e") -> Any:
    return client.post(f"/api/projects/{slug}/imports", json={"experiment": experiment, "files": files})


def test_unknown_files_become_attachments_with_a_note_shown_and_downloadable(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    files = [{"name": "wrk.txt", "content": (RUN1 / "wrk.txt").read_text()},
             {"name": "client.log", "content": CLIENT_LOG},
             {"name": "ip-route.txt", "content": TRANSCRIPT}]
    preview = client.post(f"/api/projects/{slug}/imports/preview", json={"files": files}).json()["files"]
    by_name = {f["name"]: f for f in preview}
    assert by_name["wrk.txt"]["kind"] == "wrk" and by_name["wrk.txt"]["imported"] is True
    assert by_name["client.log"]["attachment"] is True and by_name["client.log"]["imported"] is False
    assert by_name["client.log"]["note"].startswith("not recognised")
    r = _import(client, slug, files)
    assert r.status_code == 201, r.text
    # the import answers what the preview said
    assert [(f["name"], f["attachment"], f["note"]) for f in r.json()["files"]] == [
        (f["name"], f["attachment"], f["note"]) for f in preview]
    run_id = r.json()["run_id"]
    attachments = client.get(f"/api/runs/{run_id}/attachments").json()
    assert sorted(a["name"] for a in attachments) == ["client.log", "ip-route.txt"]
    log = next(a for a in attachments if a["name"] == "client.log")
    assert log["note"].startswith("not recognised") and log["size_bytes"] == len(CLIENT_LOG.encode())
    assert client.get(log["download_url"]).content == CLIENT_LOG.encode()
    detail = client.get(f"/api/runs/{run_id}").json()
    assert any("client.log: not recognised" in reason for reason in detail["status_reasons"])
    assert detail["headline"]["requests_per_sec"] > 0


def test_a_paste_keeps_its_unrecognised_part_as_an_attachment(client: TestClient, project: dict[str, Any]) -> None:
    paste = (RUN1 / "wrk.txt").read_text() + "\n" + CLIENT_LOG
    r = _import(client, project["slug"], [{"name": "terminal.txt", "content": paste}])
    assert r.status_code == 201, r.text
    parts = r.json()["files"]
    assert [p["kind"] for p in parts] == ["wrk", None]
    attachments = client.get(f"/api/runs/{r.json()['run_id']}/attachments").json()
    (a,) = attachments
    assert a["name"].startswith("terminal.txt (lines ") and client.get(a["download_url"]).text.strip() == CLIENT_LOG.strip()


def test_nothing_recognised_is_refused_naming_each_file(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    r = _import(client, slug, [{"name": "client.log", "content": CLIENT_LOG}, {"name": "empty.txt", "content": ""}])
    assert r.status_code == 400
    assert "client.log: not recognised" in r.json()["detail"] and "empty.txt: the file is empty" in r.json()["detail"]
    assert client.get(f"/api/projects/{slug}/experiments").json()["total"] == 0


def test_nginx_conf_with_log_format_is_a_snapshot_and_reads_the_custom_access_log(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    conf = (REUSE / "nginx.conf").read_text()
    alone = client.post(f"/api/projects/{slug}/imports/preview", json={"files": [{"name": "nginx.conf", "content": conf}]})
    assert [f["kind"] for f in alone.json()["files"]] == ["config"]
    log = (REUSE / "access-stalls.log").read_text()
    without = client.post(f"/api/projects/{slug}/imports/preview", json={"files": [{"name": "access.log", "content": log}]})
    assert without.json()["files"][0]["attachment"] is True
    r = _import(client, slug, [{"name": "nginx.conf", "content": conf}, {"name": "access.log", "content": log},
                               {"name": "sysctl.txt", "content": (REUSE / "sysctl-default.txt").read_text()}])
    assert r.status_code == 201, r.text
    files = {f["name"]: f for f in r.json()["files"]}
    assert files["nginx.conf"]["kind"] == "config" and files["access.log"]["kind"] == "nginx-access"
    assert files["access.log"]["preview"]["requests"] == 8 and files["access.log"]["preview"]["skipped"] == 0
    assert "read with log_format main from the nginx.conf of this import" in files["access.log"]["warnings"]
    run_id = r.json()["run_id"]
    summary = next(s for s in client.get(f"/api/runs/{run_id}").json()["summaries"] if s["kind"] == "nginx-access")
    assert summary["data"]["latency_ms"]["upstream_connect_time"]["p90"] == 480.0
    findings = client.get(f"/api/runs/{run_id}/findings").json()["findings"]
    stall = next(f for f in findings if f["rule"] == "reuseport-stall")
    assert stall["suggestion"]["knob"] == "net.ipv4.tcp_rmem"


def test_ingress_upstreaminfo_reads_without_a_config(client: TestClient, project: dict[str, Any]) -> None:
    # ingress-nginx's upstreaminfo lines: request length (612) before request time (0.004)
    lines = "".join(
        f'10.244.0.1 - - [25/Nov/2026:10:0{i}:00 +0000] "GET /api/items HTTP/1.1" 200 {600 + i} "-" "k6/0.54.0" '
        f"612 0.00{i + 1} [default-api-80] [] 10.244.1.7:8080 {600 + i} 0.00{i + 1} 200 9f1c2d3e4b5a6978{i}\n"
        for i in range(5))
    r = client.post(f"/api/projects/{project['slug']}/imports/preview",
                    json={"files": [{"name": "ingress.log", "content": lines}]})
    (f,) = r.json()["files"]
    assert f["kind"] == "nginx-access" and f["preview"]["requests"] == 5
    r = _import(client, project["slug"], [{"name": "ingress.log", "content": lines}])
    run_id = r.json()["run_id"]
    data = next(s for s in client.get(f"/api/runs/{run_id}").json()["summaries"] if s["kind"] == "nginx-access")["data"]
    assert data["latency_ms"]["request_time"]["max"] == 5.0  # milliseconds: 0.005 s, not 612 s


def test_host_facts_from_cgroup_files_make_workers_above_quota_fire(client: TestClient, project: dict[str, Any]) -> None:
    files = [{"name": "nginx.conf", "content": (AFFINITY / "nginx.conf").read_text(), "role": "proxy"},
             {"name": "cpuset.cpus", "content": (HOST / "v1-cpuset-1" / "cpuset.cpus").read_text(), "role": "proxy"},
             {"name": "lscpu.txt", "content": (HOST / "lscpu.txt").read_text(), "role": "proxy"},
             {"name": "nproc", "content": (HOST / "v1-cpuset-1" / "nproc").read_text(), "role": "proxy"},
             {"name": "wrk.txt", "content": (RUN1 / "wrk.txt").read_text()}]
    r = _import(client, project["slug"], files)
    assert r.status_code == 201, r.text
    kinds = {f["name"]: f["kind"] for f in r.json()["files"]}
    assert kinds["cpuset.cpus"] == kinds["lscpu.txt"] == kinds["nproc"] == "host-facts"
    run_id = r.json()["run_id"]
    facts = next(s for s in client.get(f"/api/runs/{run_id}").json()["summaries"] if s["kind"] == "host-facts")
    assert facts["role"] == "proxy"
    assert {k: facts["data"][k] for k in ("cpus_online", "cpus_allowed", "cgroup_cpuset", "cpu_model")} == {
        "cpus_online": 2, "cpus_allowed": 1, "cgroup_cpuset": "1", "cpu_model": "AMD EPYC"}
    rules = {f["rule"]: f for f in client.get(f"/api/runs/{run_id}/findings").json()["findings"]}
    assert rules["workers-above-quota"]["suggestion"]["to"] == "1"
    assert rules["worker-affinity-cpuset"]["suggestion"]["to"] == "auto 10"
