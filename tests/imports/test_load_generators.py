"""k6, vegeta, hey and ab results imported as a run: the same headline, load summary and comparison
as wrk's (issue 18 item 6), on outputs captured on this machine (vegeta composed from its formats)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.parsers import parse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

CASES = {
    "k6": "k6/local_k6-1.1.0_summary.txt",
    "k6-json": "k6/local_k6-1.1.0_summary_export_failed.txt",
    "vegeta": "vegeta/format_exact_v12_text_refused_502.txt",
    "vegeta-json": "vegeta/format_exact_v12_json_report.txt",
    "hey": "hey/local_hey-0.1.4_z5s_c10.txt",
    "ab": "ab/local_ab-2.3_n5000_c10.txt",
}


def _import(client: TestClient, slug: str, experiment: str, rel: str) -> dict[str, Any]:
    content = (FIXTURES / rel).read_text(encoding="utf-8")
    r = client.post(f"/api/projects/{slug}/imports",
                    json={"experiment": experiment, "label": rel, "files": [{"name": Path(rel).name, "content": content}]})
    assert r.status_code == 201, r.text
    detail: dict[str, Any] = client.get(f"/api/runs/{r.json()['run_id']}").json()
    return detail


@pytest.mark.parametrize("case", list(CASES))
def test_each_generator_fills_the_run_headline_like_wrk(client: TestClient, project: dict[str, Any], case: str) -> None:
    rel = CASES[case]
    tool = case.split("-")[0]
    expected = parse(tool, (FIXTURES / rel).read_text(encoding="utf-8"))
    preview = client.post(f"/api/projects/{project['slug']}/imports/preview",
                          json={"files": [{"name": "out.txt", "content": (FIXTURES / rel).read_text()}]}).json()
    [info] = preview["files"]
    assert info["kind"] == tool and info["role"] == "loadgen"
    assert info["preview"]["requests_per_sec"] == expected["requests_per_sec"]

    detail = _import(client, project["slug"], case, rel)
    head = detail["headline"]
    assert head["requests_per_sec"] == expected["requests_per_sec"] > 0
    assert head["latency_p50_ms"] == expected["latency_percentiles_ms"]["50"]
    assert head["errors"] == expected["non_2xx_3xx"] + sum(expected["socket_errors"].values())
    [load] = [s for s in detail["summaries"] if s["kind"] == "wrk"]
    assert load["data"]["tool"] == tool


def test_runs_of_different_generators_compare_on_the_same_rows(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    _import(client, slug, "hey-run", CASES["hey"])
    _import(client, slug, "ab-run", CASES["ab"])
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "hey-run", "experiments": ["ab-run"]})
    assert r.status_code == 200, r.text
    rps = next(m for m in r.json()["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert rps["values"] == {"hey-run": 7803.654, "ab-run": 4650.78}
    p99 = next(m for m in r.json()["metrics"] if m["key"] == "wrk.latency_percentiles_ms.99")
    assert p99["values"] == {"hey-run": 6.7, "ab-run": 9.0}
