"""The trend of a project's history through the API and `perflab-agent trend`, on imported wrk runs.

The wrk outputs are the real capture tests/fixtures/captures/nginx-proxy-buffers/default/run1/wrk.txt
with its Requests/sec, request count and p99 lines set to the values of the scenario.
"""

from __future__ import annotations

import json
import random
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.agent.helpers import agent_argv, agent_env
from tests.conftest import FIXTURES

CAPTURE = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"
WRK = (CAPTURE / "wrk.txt").read_text()


def wrk_output(rps: float, p99_ms: float) -> str:
    out = WRK.replace("Requests/sec:   5627.00", f"Requests/sec:   {rps:.2f}")
    out = out.replace("56497 requests in 10.04s", f"{round(rps * 10.04)} requests in 10.04s")
    return out.replace("99%  178.57ms", f"99%  {p99_ms:.2f}ms")


def import_run(client: TestClient, slug: str, experiment: str, wrk: str, extra: list[dict[str, str]] | None = None
               ) -> dict[str, Any]:
    r = client.post(f"/api/projects/{slug}/imports", json={
        "experiment": experiment, "label": "r", "files": [{"name": "wrk.txt", "content": wrk}, *(extra or [])]})
    assert r.status_code == 201, r.text
    return dict(r.json())


@pytest.fixture
def history(client: TestClient, project: dict[str, Any]) -> dict[str, Any]:
    """12 experiments of 2 runs each: RPS about 10,000 for six, about 7,000 after (5% run-to-run
    noise); p99 about 180 ms throughout."""
    rng = random.Random(12)
    slug = project["slug"]
    runs: dict[str, list[str]] = {}
    for i in range(12):
        name = f"exp-{i + 1:02d}"
        level = 10_000 if i < 6 else 7_000
        for _ in range(2):
            run = import_run(client, slug, name, wrk_output(level * (1 + rng.gauss(0, 0.05)),
                                                             180 * (1 + rng.gauss(0, 0.05))))
            runs.setdefault(name, []).append(str(run["run_id"]))
    return {"slug": slug, "runs": runs}


def test_a_step_in_rps_is_one_change_point_at_the_seventh_experiment(client: TestClient, history: dict[str, Any]
                                                                     ) -> None:
    r = client.get(f"/api/projects/{history['slug']}/trend", params={"metric": "wrk.requests_per_sec"})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert [e["experiment"] for e in doc["experiments"]] == [f"exp-{i:02d}" for i in range(1, 13)]
    assert all(e["n"] == 2 and len(e["runs"]) == 2 for e in doc["experiments"])
    assert 9_000 < doc["experiments"][0]["median"] < 11_000 and 6_300 < doc["experiments"][-1]["median"] < 7_700
    [cp] = doc["change_points"]
    assert (cp["experiment"], cp["previous_experiment"]) == ("exp-07", "exp-06")
    assert -35 < cp["delta_pct"] < -25 and cp["p_value"] < doc["method"]["alpha"]
    assert [e["change_point"] for e in doc["experiments"]].index(True) == 6
    flat = client.get(f"/api/projects/{history['slug']}/trend", params={"metric": "wrk.latency_p99_ms"}).json()
    assert flat["change_points"] == [] and len(flat["experiments"]) == 12


def test_invalid_runs_are_marked_and_left_out_of_the_median(client: TestClient, history: dict[str, Any],
                                                            session: Any) -> None:
    bad = history["runs"]["exp-03"][0]
    # What the compare helper's validity writes into the headline (a string or {"status": ...}).
    session.execute(text("UPDATE run SET headline = headline || '{\"validity\": {\"status\": \"invalid\"}}' "
                         "WHERE id = :id"), {"id": bad})
    session.commit()
    doc = client.get(f"/api/projects/{history['slug']}/trend", params={"metric": "wrk.requests_per_sec"}).json()
    exp = doc["experiments"][2]
    assert (exp["n"], exp["n_invalid"]) == (1, 1)
    good = next(r for r in exp["runs"] if r["run_id"] != bad)
    assert exp["median"] == pytest.approx(good["value"])
    assert {r["run_id"]: r["validity"] for r in exp["runs"]}[bad] == "invalid"


def test_decisions_and_notes_are_markers_on_their_experiment(client: TestClient, history: dict[str, Any]) -> None:
    slug = history["slug"]
    doc = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec"}).json()
    seventh = doc["experiments"][6]["experiment_id"]
    client.post(f"/api/projects/{slug}/decisions", json={"experiment_id": seventh, "component": "nginx",
                                                          "knob": "proxy_buffers", "before": "8 4k", "after": "4 4k"})
    client.post(f"/api/projects/{slug}/notes", json={"body_md": "moved to the small VM\nmore", "experiment_id": seventh})
    doc = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec"}).json()
    markers = doc["experiments"][6]["markers"]
    assert [(m["kind"], m["text"]) for m in markers] == [("decision", "nginx: proxy_buffers 8 4k → 4 4k"),
                                                         ("note", "moved to the small VM")]


def test_metrics_list_telemetry_and_syscalls(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    import_run(client, slug, "default", WRK, [
        {"name": "vmstat.txt", "content": (CAPTURE / "vmstat.txt").read_text(), "role": "proxy"},
        {"name": "strace-c.txt", "content": (CAPTURE / "strace-c.txt").read_text(), "role": "proxy"}])
    keys = {m["key"]: m for m in client.get(f"/api/projects/{slug}/trend/metrics").json()}
    assert keys["wrk.requests_per_sec"]["runs"] == 1 and keys["wrk.requests_per_sec"]["higher_is_better"] is True
    assert "vmstat.sy@proxy" in keys and "strace-c.readv.calls@proxy" in keys
    sy = client.get(f"/api/projects/{slug}/trend", params={"metric": "vmstat.sy@proxy"}).json()
    assert 50 < sy["experiments"][0]["median"] < 100  # the proxy spent most of its CPU in the kernel
    readv = client.get(f"/api/projects/{slug}/trend", params={"metric": "strace-c.readv.calls@proxy"}).json()
    assert readv["experiments"][0]["median"] > 1000


@pytest.mark.parametrize("metric", ["wrk.nope", "sy", "strace-c.readv.bogus@proxy", "vmstat.sy@"])
def test_unknown_metric_keys_are_a_400_naming_the_forms(client: TestClient, project: dict[str, Any],
                                                         metric: str) -> None:
    r = client.get(f"/api/projects/{project['slug']}/trend", params={"metric": metric})
    assert r.status_code == 400 and metric in r.json()["detail"]


def test_a_metric_without_values_is_an_empty_trend(client: TestClient, project: dict[str, Any]) -> None:
    r = client.get(f"/api/projects/{project['slug']}/trend", params={"metric": "vmstat.us@proxy"})
    assert r.status_code == 200 and r.json()["experiments"] == [] and r.json()["change_points"] == []


@pytest.fixture
def live_server(app: Any) -> Iterator[str]:
    """The app under uvicorn on a free port, for the agent (a separate process) to call."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_agent_trend_prints_experiments_and_the_change_point(client: TestClient, history: dict[str, Any],
                                                             live_server: str) -> None:
    token = client.post(f"/api/projects/{history['slug']}/tokens", json={"name": "ci", "scopes": ["read"]}
                        ).json()["token"]
    argv = agent_argv("trend", "--project", history["slug"], "--metric", "wrk.requests_per_sec")
    out = subprocess.run([*argv, "--format", "json"], env=agent_env(live_server, token), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["metric"] == "wrk.requests_per_sec"
    assert [e["experiment"] for e in doc["experiments"]][:2] == ["exp-01", "exp-02"]
    assert all(set(e) >= {"experiment", "median", "n"} for e in doc["experiments"])
    assert [c["experiment"] for c in doc["change_points"]] == ["exp-07"]
    assert doc["change_points"][0]["delta_pct"] < -25
    table = subprocess.run(argv, env=agent_env(live_server, token), capture_output=True, text=True, timeout=60)
    assert table.returncode == 0 and "change point at exp-07" in table.stdout
    strict = subprocess.run([*argv, "--alpha", "0.01", "--format", "json"], env=agent_env(live_server, token),
                            capture_output=True, text=True, timeout=60)
    assert strict.returncode == 0 and json.loads(strict.stdout)["method"]["alpha"] == 0.01, strict.stderr
    missing = subprocess.run([*argv[:-1], "wrk.nope"], env=agent_env(live_server, token), capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 1 and "unknown wrk metric" in missing.stderr


def test_a_short_history_says_it_is_too_short_instead_of_no_change(client: TestClient, project: dict[str, Any]
                                                                  ) -> None:
    """Five experiments cannot show a step with 3 on each side: the reply says so, never "no change"."""
    slug = project["slug"]
    rng = random.Random(5)
    for i in range(5):
        for _ in range(3):
            import_run(client, slug, f"s-{i}", wrk_output(10_000 * (1 + rng.gauss(0, 0.03)), 180))
    doc = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec"}).json()
    assert doc["assessment"] == "too_short" and doc["detectable_step_pct"] is None
    assert "too short to judge" in doc["summary"].lower() and "has 5" in doc["summary"]


def test_the_issue_step_of_25_pct_in_8_experiments_of_3_runs_is_found_once_3_follow_it(
        client: TestClient, project: dict[str, Any]) -> None:
    """The case that used to read "consistent with noise": -25% after the fifth of 8 experiments, 3 runs
    each, 3% noise. Before it is found, the flat part states the smallest step it could see."""
    slug = project["slug"]
    rng = random.Random(8)
    for i in range(8):
        for _ in range(3):
            level = 10_000 if i < 5 else 7_500
            import_run(client, slug, f"e-{i}", wrk_output(level * (1 + rng.gauss(0, 0.03)), 180))
        if i == 5:  # 6 experiments, one after the step: nothing yet, and it says what it could see
            early = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec"}).json()
            assert early["change_points"] == [] and early["assessment"] == "no_change"
            assert 0 < early["detectable_step_pct"] and "too short to judge a smaller change" in early["summary"]
    doc = client.get(f"/api/projects/{slug}/trend", params={"metric": "wrk.requests_per_sec"}).json()
    [cp] = doc["change_points"]
    assert cp["experiment"] == "e-5" and -28 < cp["delta_pct"] < -22 and doc["assessment"] == "changed"
    assert doc["method"]["alpha"] == 0.05 and doc["method"]["name"] == "max-t-segmentation"


def test_the_sensitivity_is_a_query_parameter_within_the_calibrated_range(client: TestClient,
                                                                          history: dict[str, Any]) -> None:
    url = f"/api/projects/{history['slug']}/trend"
    strict = client.get(url, params={"metric": "wrk.requests_per_sec", "alpha": 0.01}).json()
    assert strict["method"]["alpha"] == 0.01 and len(strict["change_points"]) == 1
    eager = client.get(url, params={"metric": "wrk.latency_p99_ms", "alpha": 0.2}).json()
    calm = client.get(url, params={"metric": "wrk.latency_p99_ms", "alpha": 0.01}).json()
    # A stricter rate needs a larger step to see one: the detectable step grows.
    assert eager["detectable_step_pct"] < calm["detectable_step_pct"]
    for bad in ("0", "0.001", "0.5", "x"):
        r = client.get(url, params={"metric": "wrk.requests_per_sec", "alpha": bad})
        assert r.status_code == 422 and "alpha" in r.text, (bad, r.text)
