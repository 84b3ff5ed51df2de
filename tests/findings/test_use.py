"""The USE checklist of a run: per resource, utilisation, saturation and errors, which checks ran on the
run's own outputs, which found something, and which collector would let a missing one run."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from perflab.findings import use
from perflab.findings.rules import evaluate

from .helpers import CAPTURE, SCENARIOS, capture, run_data


def cell(rows: list[dict[str, Any]], resource: str, kind: str) -> dict[str, Any]:
    return next(r for r in rows if r["resource"] == resource and r["type"] == kind)


def test_the_proxy_buffers_run_checks_cpu_and_names_what_is_missing() -> None:
    data = capture("default")
    rows = use.checklist(data, evaluate(data))
    assert len(rows) == 18 and {r["resource"] for r in rows} == set(use.RESOURCES)
    cpu = cell(rows, "CPU", "saturation")
    assert cpu["status"] == "finding" and cpu["fired"] == ["copy-bound-proxy"]
    assert cpu["value"].startswith("run queue ")
    util = cell(rows, "CPU", "utilisation")
    assert util["status"] == "silent" and util["value"].startswith("us ") and "sy 8" in util["value"]
    net = cell(rows, "network", "saturation")
    assert net["status"] == "missing" and net["hint"] == ("add `--collect nstat` (or import `nstat -az` / `netstat -s`)"
                                                          " to see retransmits")
    assert cell(rows, "memory", "saturation")["status"] == "silent"
    assert cell(rows, "file descriptors", "saturation")["status"] == "n/a"


def test_nstat_and_netstat_let_the_network_checks_run() -> None:
    d = SCENARIOS / "listen-backlog"
    data = run_data({"ss-ltn": d / "ss-ltnp.txt", "netstat-s": d / "netstat-s.txt", "sysctl": d / "sysctl.txt"})
    rows = use.checklist(data, evaluate(data))
    sat = cell(rows, "network", "saturation")
    assert sat["status"] == "silent" and "(netstat-s, since boot)" in sat["value"] and "TcpRetransSegs" in sat["value"]
    listen = cell(rows, "sockets and conntrack", "saturation")
    assert listen["status"] == "finding" and listen["fired"] == ["listen-overflow"]
    nstat = run_data({"nstat": SCENARIOS / "sendfile-nopush" / "nstat-z-off.txt"})
    assert cell(use.checklist(nstat, []), "network", "saturation")["value"] == (
        "TcpRetransSegs 2, TcpExtTCPTimeouts 0 (nstat, this run)")  # as the real capture counted


def test_use_api_on_an_imported_run(client: TestClient, project: dict[str, Any]) -> None:
    run1 = CAPTURE / "default" / "run1"
    files = [{"name": n, "content": (run1 / n).read_text(), "role": "loadgen" if n == "wrk.txt" else "proxy"}
             for n in ("wrk.txt", "vmstat.txt", "strace-c.txt")]
    files.append({"name": "nginx.conf", "content": (CAPTURE / "default" / "nginx.conf").read_text(), "role": "proxy"})
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": files})
    assert r.status_code == 201, r.text
    doc = client.get(f"/api/runs/{r.json()['run_id']}/use").json()
    assert doc["resources"][0] == "CPU" and len(doc["checks"]) == 18
    assert cell(doc["checks"], "CPU", "saturation")["status"] == "finding"
    assert cell(doc["checks"], "sockets and conntrack", "errors")["hint"].startswith("add `--collect dmesg`")


def test_a_profile_uploaded_to_a_run_feeds_the_access_log_lock_rule(client: TestClient, project: dict[str, Any]) -> None:
    # The findings service reads only the functions the rules name from a profile's table.
    conf = (SCENARIOS / "sendfile-nopush" / "nginx-tcp_nopush-on.conf").read_text().replace(
        "access_log off;", "access_log /var/log/nginx/access.log;")
    files = [{"name": "wrk.txt", "content": (CAPTURE / "default" / "run1" / "wrk.txt").read_text()},
             {"name": "nginx.conf", "content": conf, "role": "proxy"}]
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "log lock", "files": files})
    run_id = r.json()["run_id"]
    assert "access-log-lock" not in {f["rule"] for f in client.get(f"/api/runs/{run_id}/findings").json()["findings"]}
    folded = (SCENARIOS / "access-log-lock" / "osq-lock.folded").read_bytes()
    up = client.post(f"/api/runs/{run_id}/profiles", params={"name": "perf.folded", "role": "proxy"}, content=folded,
                     headers={"Content-Type": "application/octet-stream"})
    assert up.status_code == 201, up.text
    (f,) = [f for f in client.get(f"/api/runs/{run_id}/findings").json()["findings"] if f["rule"] == "access-log-lock"]
    assert f["suggestion"]["to"] == "/var/log/nginx/access.log buffer=64k flush=1s"
    lock = next(e for e in f["evidence"] if e["label"] == "rwsem_down_write_slowpath")
    assert lock["kind"] == "profile" and lock["ref"]["role"] == "proxy" and lock["value"] == "57% of samples"
    disk = next(c for c in client.get(f"/api/runs/{run_id}/use").json()["checks"]
                if c["resource"] == "disk" and c["type"] == "saturation")
    assert disk["fired"] == ["access-log-lock"]
