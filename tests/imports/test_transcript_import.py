"""A terminal session imported as one unlabelled file (issue 18 items 1-3): each command's output lands by the
kind its command names, the host-fact commands become ONE host-facts summary per role in the agent's keys,
`vmstat 5` charts 5 s apart, a `cat` of nginx.conf is the run's config snapshot, and what perflab does not
read (`ip route`) is kept as an attachment whose note the preview and the import say alike. The findings
rules then read the imported facts exactly like an agent's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
PINNED = "composed_rhel_cpuset45_nginx.txt"
HEALTHY = "composed_sh_cpuset_healthy_nginx.txt"
SAME = ("name", "kind", "ok", "role", "start_line", "end_line", "imported", "attachment", "note", "preview")


def _import(client: TestClient, slug: str, fixture: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    files = [{"name": "session.txt", "content": (FIXTURES / fixture).read_text(), "role": "proxy"}]
    preview = client.post(f"/api/projects/{slug}/imports/preview", json={"files": files})
    assert preview.status_code == 200, preview.text
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": fixture, "files": files})
    assert r.status_code == 201, r.text
    return preview.json()["files"], r.json()


def test_a_session_imports_by_command_with_one_fact_set(client: TestClient, project: dict[str, Any]) -> None:
    parts, result = _import(client, project["slug"], PINNED)
    assert [(p["kind"], p["imported"], p["attachment"]) for p in parts] == [
        ("host-facts", True, False), ("host-facts", True, False), ("host-facts", True, False),
        ("vmstat", True, False), (None, False, True), (None, False, True), ("config", True, False),
        (None, False, False)]
    # the preview says what the import did, part by part
    assert [{k: p.get(k) for k in SAME} for p in parts] == [{k: p.get(k) for k in SAME} for p in result["files"]]
    cpuset = parts[1]
    assert cpuset["preview"]["cgroup_cpuset"] == "45" and cpuset["preview"]["cpus_allowed"] == 1
    assert cpuset["preview"]["sources"] == ["cat /sys/fs/cgroup/cpuset/cpuset.cpus"]
    assert parts[3]["preview"]["interval_s"] == 5.0 and parts[3]["preview"]["samples"] == 3
    route = parts[4]
    assert route["note"].startswith("not recognised") and "`ip route`" in route["note"]
    assert (route["start_line"], route["end_line"]) == (55, 57) and not route["warnings"]

    run_id = result["run_id"]
    detail = client.get(f"/api/runs/{run_id}").json()
    facts = [s for s in detail["summaries"] if s["kind"] == "host-facts"]
    assert len(facts) == 1 and facts[0]["role"] == "proxy"
    assert {k: v for k, v in facts[0]["data"].items() if k != "sources"} == {
        "cpus_allowed": 1, "cgroup_cpuset": "45", "cpus_online": 64, "cpu_model": "AMD EPYC", "cpus_effective": 1}
    assert facts[0]["data"]["sources"] == ["nproc", "cat /sys/fs/cgroup/cpuset/cpuset.cpus", "lscpu"]

    series = client.get(f"/api/runs/{run_id}/series").json()
    us = next(s for s in series if s["source"] == "vmstat" and s["key"] == "us")
    data = client.get(f"/api/runs/{run_id}/series/data", params={"ids": [us["id"]]}).json()["series"][0]
    # the first row averages since boot (not charted); the others are 5 s apart, as `vmstat 5` printed them
    assert data["v"] == [80.0, 57.0] and data["t"][1] - data["t"][0] == 5.0

    kept = {a["name"]: a for a in client.get(f"/api/runs/{run_id}/attachments").json()}
    route_file = kept["session.txt (lines 55-57)"]
    assert route_file["note"] == route["note"]
    assert client.get(route_file["download_url"]).text.startswith("[root@web1 ~]# ip route\ndefault via")


def test_rules_read_imported_facts_like_an_agents(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    _, pinned = _import(client, slug, PINNED)
    findings = client.get(f"/api/runs/{pinned['run_id']}/findings").json()["findings"]
    fired = {f["rule"]: f for f in findings}
    assert {"workers-above-quota", "worker-affinity-cpuset"} <= set(fired)
    assert fired["workers-above-quota"]["suggestion"]["to"] == "1"
    affinity = fired["worker-affinity-cpuset"]
    assert "cpuset 45" in affinity["title"] and affinity["suggestion"]["to"] == "auto " + "1" + "0" * 45
    # the evidence names the config the transcript's `cat` showed
    assert any(e.get("ref", {}).get("file") == "nginx.conf" for e in affinity["evidence"])

    _, healthy = _import(client, slug, HEALTHY)
    quiet = {f["rule"] for f in client.get(f"/api/runs/{healthy['run_id']}/findings").json()["findings"]}
    assert not quiet & {"workers-above-quota", "worker-affinity-cpuset", "workers-below-cpus"}
    detail = client.get(f"/api/runs/{healthy['run_id']}").json()
    facts = [s["data"] for s in detail["summaries"] if s["kind"] == "host-facts"]
    assert len(facts) == 1 and (facts[0]["cpus_online"], facts[0]["cpus_effective"]) == (2, 2)


def test_recorded_sessions_give_one_fact_set_and_sysctl_values(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    parts, result = _import(client, slug, "local_debian_root_prompt.txt")
    assert [p["kind"] for p in parts] == ["vmstat"] + ["host-facts"] * 6 + ["sysctl", "ss-s", None, None, None]
    assert [p["attachment"] for p in parts[-3:]] == [True, True, True]  # ip route, uname -r, exit
    detail = client.get(f"/api/runs/{result['run_id']}").json()
    facts = [s["data"] for s in detail["summaries"] if s["kind"] == "host-facts"]
    # six outputs of one host, one fact set: v1's quota -1 is no limit, its "unlimited" memory is none
    assert len(facts) == 1 and {k: v for k, v in facts[0].items() if k != "sources"} == {
        "cpus_allowed": 2, "cpus_online": 2, "cgroup_version": 1, "cgroup_cpu_quota_us": None,
        "cgroup_cpu_limit": None, "cgroup_cpu_period_us": 100000, "cgroup_cpuset": "0-1", "cgroup_memory_max": None,
        "cpus_effective": 2}

    sh_parts, sh = _import(client, slug, "local_sh_prompt.txt")
    # `cat /proc/sys/net/core/somaxconn` is a setting: the run's sysctl values, not a host fact
    assert [p["kind"] for p in sh_parts] == ["host-facts", "sysctl", "host-facts", "nstat", None]
    summaries = client.get(f"/api/runs/{sh['run_id']}").json()["summaries"]
    sysctl = next(s["data"] for s in summaries if s["kind"] == "sysctl")
    assert sysctl["values"] == {"net.core.somaxconn": "4096"}
