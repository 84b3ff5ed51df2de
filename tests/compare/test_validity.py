"""Invalid runs stay out of every median and verdict; syscall tables are grouped by role, not file name.

On the real proxy_buffers capture (tests/fixtures/captures) plus real wrk outputs with error
responses (tests/fixtures/wrk: copies of shared/fixtures/wrk, see tests/fixtures/INDEX.md).
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.compare.investigation import CAPTURE, Investigation
from tests.conftest import FIXTURES, wait_parsed

ALL_403 = (FIXTURES / "wrk" / "4.1.0_all_non2xx_403_upstream.txt").read_text()  # 269,758 of 269,758 non-2xx
NO_REQUESTS = (FIXTURES / "wrk" / "4.1.0_zero_responses.txt").read_text()
SOCKET_ERRORS = (FIXTURES / "wrk" / "4.1.0_c500_socket_errors.txt").read_text()  # 13 timeouts in 8,599


def _add_run(agent: TestClient, experiment: str, label: str, wrk_text: str) -> str:
    run_id = str(uuid.uuid4())
    for path, body in (
        ("/api/agent/runs", {"run_id": run_id, "experiment": experiment, "label": label,
                             "wait_for_roles": ["loadgen"]}),
        (f"/api/agent/runs/{run_id}/join", {"agent_id": "agent-loadgen-0001", "role": "loadgen"}),
        (f"/api/agent/runs/{run_id}/start", {"started_at": time.time()}),
    ):
        assert agent.post(path, json=body).status_code in (200, 201)
    lines = [[time.time(), 1.0, ln] for ln in wrk_text.splitlines()]
    r = agent.post("/api/ingest/batches", json={"agent_id": "agent-loadgen-0001", "batches": [
        {"run_id": run_id, "stream": "load", "source": "wrk", "role": "loadgen", "seq": 1, "lines": lines,
         "closed": True}]})
    assert r.status_code == 200, r.text
    assert agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0}).status_code == 200
    wait_parsed(run_id)
    return run_id


def _compare(client: TestClient, slug: str, experiments: list[str], **params: Any) -> dict[str, Any]:
    r = client.get(f"/api/projects/{slug}/compare",
                   params={"baseline": "direct", "experiments": experiments, **params})
    assert r.status_code == 200, r.text
    doc: dict[str, Any] = r.json()
    return doc


def _cell(doc: dict[str, Any], key: str, exp: str) -> dict[str, Any]:
    row = next(r for r in doc["results"] if r["key"] == key)
    cell: dict[str, Any] = row["cells"][exp]
    return cell


def _rps(exp: str) -> list[float]:
    return [float(next(ln for ln in (CAPTURE / exp / f"run{n}" / "wrk.txt").read_text().splitlines()
                       if ln.startswith("Requests/sec:")).split()[1]) for n in (1, 2, 3)]


def test_error_runs_are_invalid_and_out_of_every_median_and_verdict(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = investigation.slug
    agent = bearer(investigation.token)
    # 26,880 req/s of 403s would pull default's median up and its verdict with it.
    bad = _add_run(agent, "default", "run 4 (upstream 403)", ALL_403)
    _add_run(agent, "broken", "no answer", NO_REQUESTS)
    doc = _compare(client, slug, ["default", "broken"])

    rps = _cell(doc, "wrk.requests_per_sec", "default")
    assert rps["n"] == 3 and rps["invalid_runs"] == 1
    assert rps["median"] == statistics.median(_rps("default")) and rps["verdict"] == "worse"
    assert 26880.29 not in rps["values"]
    broken = _cell(doc, "wrk.requests_per_sec", "broken")
    assert broken["n"] == 0 and broken["invalid_runs"] == 1 and broken["verdict"] == "invalid"
    assert doc["validity"]["invalid_runs"] == 2 and doc["validity"]["include_invalid"] is False
    metric = next(m for m in doc["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert metric["runs"]["default"] == 3 and metric["verdict"]["broken"] == "invalid"

    run = next(r for c in doc["columns"] if c["name"] == "default" for r in c["runs"] if r["id"] == bad)
    assert run["validity"] == "invalid" and run["included"] is False
    assert "269758 of 269758 responses were not 2xx/3xx" in run["invalid_reasons"][0]
    assert any(s.startswith("default / run 4 (upstream 403): invalid (left out)") for s in doc["validity"]["summary"])
    # Not in the movers either: nothing there speaks of the 403 run's throughput.
    assert all("26880" not in m["text"] for m in doc["top_movers"])

    md = client.get(f"/api/projects/{slug}/compare/markdown",
                    params={"baseline": "direct", "experiments": ["default", "broken"]}).text
    assert "default (3 runs, 1 invalid left out)" in md and "broken (0 runs, 1 invalid left out)" in md

    # Included on purpose: counted, and said so.
    doc = _compare(client, slug, ["default"], include_invalid="true")
    rps = _cell(doc, "wrk.requests_per_sec", "default")
    assert rps["n"] == 4 and rps["invalid_runs"] == 0 and 26880.29 in rps["values"]
    assert doc["validity"]["include_invalid"] is True


def test_a_few_errors_flag_a_run_and_the_projects_thresholds_decide(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = investigation.slug
    agent = bearer(investigation.token)
    _add_run(agent, "c500", "timeouts", SOCKET_ERRORS)
    doc = _compare(client, slug, ["c500"])
    run = next(c for c in doc["columns"] if c["name"] == "c500")["runs"][0]
    assert run["validity"] == "flagged" and run["included"]  # 0.15% < 1%: counted, with its warning
    assert _cell(doc, "wrk.requests_per_sec", "c500")["n"] == 1

    r = client.patch(f"/api/projects/{slug}", json={"validity": {"socket_errors_pct": 0.1}})
    assert r.status_code == 200 and r.json()["validity"]["socket_errors_pct"] == 0.1
    doc = _compare(client, slug, ["c500"])
    run = next(c for c in doc["columns"] if c["name"] == "c500")["runs"][0]
    assert run["validity"] == "invalid" and "limit 0.1%" in run["invalid_reasons"][0]
    assert _cell(doc, "wrk.requests_per_sec", "c500")["verdict"] == "invalid"

    bad = client.patch(f"/api/projects/{slug}", json={"validity": {"socket_errors_pct": -1}})
    assert bad.status_code == 422


def test_history_keeps_invalid_runs_out_of_its_medians_and_counts_them(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    _add_run(bearer(investigation.token), "default", "403s", ALL_403)
    items = client.get(f"/api/projects/{investigation.slug}/experiments").json()["items"]
    default = next(i for i in items if i["name"] == "default")
    assert default["run_count"] == 4 and default["invalid_runs"] == 1
    assert default["headline"]["requests_per_sec"] == statistics.median(_rps("default"))
    assert next(i for i in items if i["name"] == "direct")["invalid_runs"] == 0


def test_strace_c_tables_of_imported_runs_group_by_role_not_file_name(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    for exp in ("direct", "default"):
        for n in (1, 2, 3):
            folder = CAPTURE / exp / f"run{n}"
            wrk, strace_c = (folder / "wrk.txt").read_text(), (folder / "strace-c.txt").read_text()
            # Run 2 was pasted as one text: wrk's summary then the strace -c table.
            files = ([{"name": "pasted-1.txt", "content": wrk + strace_c, "role": "proxy"}] if n == 2 else
                     [{"name": "wrk.txt", "content": wrk},
                      {"name": "strace-c.txt", "content": strace_c, "role": "proxy"}])
            r = client.post(f"/api/projects/{slug}/imports",
                            json={"experiment": exp, "label": f"run {n}", "files": files})
            assert r.status_code == 201, r.text
    doc = _compare(client, slug, ["default"])
    assert [(t["role"], t["process"]) for t in doc["syscalls"]] == [("proxy", "all")]
    writev = next(r for r in doc["syscalls"][0]["rows"] if r["syscall"] == "writev")
    assert writev["cells"]["direct"]["n"] == 3 and writev["cells"]["direct"]["calls"] == 13302
    # Per request (writev per recvfrom): direct 4.00, default 8.51.
    assert round(writev["cells"]["default"]["calls_per_request_delta_pct"]) == 113
    # The pasted run's wrk figures count too.
    assert _cell(doc, "wrk.requests_per_sec", "direct")["n"] == 3
