"""Compare the four nginx proxy_buffers experiments the way an engineer does, on the real capture."""

from __future__ import annotations

import csv
import io
import re
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.compare.investigation import CAPTURE, Investigation
from tests.conftest import wait_parsed

OTHERS = ["default", "buffers-128x4k", "buffers-4x128k"]


def _compare(client: TestClient, slug: str, baseline: str = "direct", experiments: list[str] | None = None,
             path: str = "") -> Any:
    r = client.get(f"/api/projects/{slug}/compare{path}",
                   params={"baseline": baseline, "experiments": experiments or OTHERS})
    assert r.status_code == 200, r.text
    return r


def _rps(exp: str) -> list[float]:
    out = []
    for n in (1, 2, 3):
        line = next(ln for ln in (CAPTURE / exp / f"run{n}" / "wrk.txt").read_text().splitlines()
                    if ln.startswith("Requests/sec:"))
        out.append(float(line.split()[1]))
    return out


def _row(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return next(r for r in doc["results"] if r["key"] == key)


def test_the_cli_contract_carries_medians_run_counts_deltas_and_verdicts(
    client: TestClient, investigation: Investigation
) -> None:
    doc = _compare(client, investigation.slug).json()
    assert doc["baseline"] == "direct"
    assert doc["experiments"] == ["direct", *OTHERS]
    rps = next(m for m in doc["metrics"] if m["key"] == "wrk.requests_per_sec")
    assert set(rps) == {"key", "direction", "values", "runs", "delta_pct", "verdict", "undecided_reason",
                        "detectable_pct", "runs_needed"}
    assert rps["direction"] == "higher_is_better"
    assert rps["values"]["direct"] == statistics.median(_rps("direct"))
    assert rps["values"]["default"] == statistics.median(_rps("default"))
    assert rps["runs"] == {"direct": 3, "default": 3, "buffers-128x4k": 3, "buffers-4x128k": 3}
    # DESIGN.md: going through nginx with the default buffers costs about half the throughput.
    assert -50 < rps["delta_pct"]["default"] < -45
    assert rps["delta_pct"]["default"] == round((6713.80 / 12789.39 - 1) * 100, 1)
    assert rps["verdict"] == {"direct": "equivalent", "default": "worse", "buffers-128x4k": "worse",
                              "buffers-4x128k": "not_decided"}
    # Not decided says why and what would decide it; a decided verdict needs no more runs.
    assert "noise" in rps["undecided_reason"]["buffers-4x128k"]
    assert 3 < rps["detectable_pct"]["buffers-4x128k"] < 20
    assert rps["undecided_reason"]["default"] is None and rps["runs_needed"]["default"] is None
    keys = [m["key"] for m in doc["metrics"]]
    assert keys[:4] == [f"wrk.latency_percentiles_ms.{p}" for p in ("50", "75", "90", "99")]
    assert {"wrk.latency_ms.avg", "wrk.latency_ms.stdev", "wrk.latency_ms.max", "wrk.transfer_per_sec_bytes",
            "wrk.requests", "wrk.non_2xx_3xx", "wrk.socket_errors"} <= set(keys)
    p50 = next(m for m in doc["metrics"] if m["key"] == "wrk.latency_percentiles_ms.50")
    assert p50["direction"] == "lower_is_better" and p50["verdict"]["default"] == "worse"


def test_result_cells_show_median_spread_interval_and_the_method(client: TestClient, investigation: Investigation) -> None:
    doc = _compare(client, investigation.slug).json()
    cell = _row(doc, "wrk.requests_per_sec")["cells"]["default"]
    assert (cell["min"], cell["max"], cell["n"]) == (min(_rps("default")), max(_rps("default")), 3)
    assert sorted(cell["values"]) == sorted(_rps("default"))
    # The 95% interval of the ratio (Welch on log values) holds the -47% and excludes no change.
    assert cell["ci_low_pct"] < -47 < cell["ci_high_pct"] < -30
    assert cell["noise_floor_pct"] is not None and cell["noise_floor_pct"] > 0
    assert cell["detectable_pct"] is not None and cell["margin_pct"] == 3.0
    assert doc["method"]["name"].startswith("Welch's t-test on log values")
    assert doc["method"]["alpha"] == 0.05 and doc["method"]["confidence"] == 0.95
    assert doc["method"]["margins_pct"]["throughput"] == 3.0
    assert [c["name"] for c in doc["columns"]] == doc["experiments"]
    assert doc["columns"][0]["is_baseline"] and len(doc["columns"][1]["runs"]) == 3


def test_a_read_scope_token_gets_the_comparison_and_an_ingest_only_token_does_not(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = investigation.slug
    read = client.post(f"/api/projects/{slug}/tokens", json={"name": "ci", "scopes": ["read"]}).json()["token"]
    ingest = client.post(f"/api/projects/{slug}/tokens", json={"name": "a", "scopes": ["ingest"]}).json()["token"]
    r = bearer(read).get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]})
    assert r.status_code == 200 and r.json()["experiments"] == ["direct", "default"]
    r = bearer(ingest).get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": ["default"]})
    assert r.status_code == 403
    # Experiments may be named by id too.
    exp_id = client.get(f"/api/projects/{slug}/experiments", params={"q": "default"}).json()["items"][0]["id"]
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "direct", "experiments": [str(exp_id)]})
    assert r.json()["experiments"] == ["direct", "default"]


def test_unknown_experiments_and_empty_selections_are_clear_errors(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "nope", "experiments": ["x"]})
    assert r.status_code == 404 and "nope" in r.json()["detail"]
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "1" * 40, "experiments": ["x"]})
    assert r.status_code == 404
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": "nope"})
    assert r.status_code == 422 and r.json()["error"] == "validation_error"


def test_a_single_run_is_not_decided_and_says_why(app: Any, client: TestClient, project: dict[str, Any]) -> None:
    from tests.compare.investigation import load_with_testclient

    inv = load_with_testclient(app, client, project["slug"], experiments=("direct", "default"), runs=(1,))
    doc = _compare(client, inv.slug, experiments=["default"]).json()
    cell = _row(doc, "wrk.requests_per_sec")["cells"]["default"]
    assert cell["verdict"] == "not_decided" and cell["ci_low_pct"] is None and cell["n"] == 1
    assert "no noise estimate" in cell["undecided_reason"]
    assert cell["noise_floor_pct"] is None
    md = _compare(client, inv.slug, experiments=["default"], path="/markdown").text
    assert "not decided: one run on a side gives no noise estimate" in md
    # One run a side has no noise to tell: the export says nothing rather than a made-up figure.
    assert "Noise of this setup" not in md


def test_invalid_runs_are_flagged_on_the_cell_and_in_the_summary(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = investigation.slug
    doc = _compare(client, slug).json()
    # direct run 1 really had CPU steal on the capture VM (vmstat st 12-28%).
    assert any("direct / run 1: CPU steal" in s for s in doc["validity"]["summary"])
    assert any("steal" in f for f in _row(doc, "wrk.requests_per_sec")["cells"]["direct"]["flags"])

    # A run with errors and one whose proxy never joined: flagged, still counted, never hidden.
    agent = bearer(investigation.token)
    errors_wrk = (CAPTURE / "default" / "run1" / "wrk.txt").read_text().replace(
        "Requests/sec:", "  Socket errors: connect 0, read 3, write 0, timeout 7\n  Non-2xx or 3xx responses: 120\n"
        "Requests/sec:")
    for label, roles in (("errors", ["loadgen"]), ("no proxy", ["loadgen", "proxy", "upstream"])):
        run_id = str(uuid.uuid4())
        agent.post("/api/agent/runs", json={"run_id": run_id, "experiment": "flaky", "label": label,
                                            "wait_for_roles": roles})
        agent.post(f"/api/agent/runs/{run_id}/join", json={"agent_id": "agent-loadgen-0001", "role": "loadgen"})
        agent.post(f"/api/agent/runs/{run_id}/start", json={"started_at": time.time()})
        lines = [[time.time(), 1.0, ln] for ln in errors_wrk.splitlines()]
        r = agent.post("/api/ingest/batches", json={"agent_id": "agent-loadgen-0001", "batches": [
            {"run_id": run_id, "stream": "load", "source": "wrk", "role": "loadgen", "seq": 1, "lines": lines,
             "closed": True}]})
        assert r.status_code == 200, r.text
        agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0})
        wait_parsed(run_id)
    doc = _compare(client, slug, experiments=["flaky"]).json()
    summary = doc["validity"]["summary"]
    assert any("flaky / errors: 120 non-2xx/3xx responses" in s for s in summary)
    assert any("flaky / errors: socket errors: read 3, timeout 7" in s for s in summary)
    assert any(s.startswith("flaky / no proxy: partial run:") and "no host with role upstream joined the run" in s
               for s in summary)
    cell = _row(doc, "wrk.non_2xx_3xx")["cells"]["flaky"]
    assert cell["median"] == 120 and cell["n"] == 2 and len(cell["flags"]) >= 3
    assert _row(doc, "wrk.socket_errors")["cells"]["flaky"]["median"] == 10
    assert doc["validity"]["flagged_runs"] >= 3
    md = _compare(client, slug, experiments=["flaky"], path="/markdown").text
    assert "Flagged runs" in md and "120 non-2xx/3xx responses" in md


def test_host_telemetry_steady_state_per_role_with_deltas(client: TestClient, investigation: Investigation) -> None:
    doc = _compare(client, investigation.slug, experiments=["default"]).json()
    proxy = next(t for t in doc["telemetry"] if t["role"] == "proxy")
    assert proxy["hosts"] == ["proxy-1"]
    keys = [r["key"] for r in proxy["rows"]]
    assert keys[:8] == [f"vmstat.{m}" for m in ("us", "sy", "id", "wa", "st", "in", "cs", "r")]
    assert "pidstat.cpu_pct[nginx]" in keys
    sy = next(r for r in proxy["rows"] if r["key"] == "vmstat.sy")
    # DESIGN.md: through nginx with default buffers, the proxy spends most of its time in the kernel.
    assert sy["cells"]["default"]["median"] > 80 and sy["cells"]["default"]["verdict"] == "increased"
    assert sy["cells"]["default"]["delta"] > 20 and sy["direction"] == "neutral"
    assert {"role": "proxy", "key": "vmstat.sy", "label": "CPU system", "unit": "%"} in doc["overlay_metrics"]


def test_overlays_align_runs_to_start_downsample_and_carry_time_range_notes(
    client: TestClient, investigation: Investigation
) -> None:
    slug = investigation.slug
    run = investigation.runs["default"][1]
    note = client.post(f"/api/projects/{slug}/notes",
                       json={"run_id": run, "t_start_s": 3, "t_end_s": 5, "body_md": "nginx reload at 00:03"})
    assert note.status_code == 201
    r = client.get(f"/api/projects/{slug}/compare/overlay", params={
        "baseline": "direct", "experiments": ["default"], "role": "proxy", "metric": "vmstat.sy"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert [e["experiment"] for e in body["experiments"]] == ["direct", "default"]
    line = body["experiments"][1]["runs"][0]["lines"][0]
    assert line["host"] == "proxy-1" and not line["downsampled"]
    assert line["t"][0] < 2 and line["t"] == sorted(line["t"])
    vm = [ln.split() for ln in (CAPTURE / "default" / "run1" / "vmstat.txt").read_text().splitlines()[3:]]
    assert line["v"] == [float(cols[13]) for cols in vm]  # every sy after the since-boot row, in order
    assert [n["body_md"] for n in body["notes"]] == ["nginx reload at 00:03"]
    assert body["notes"][0]["t_start_s"] == 3 and body["notes"][0]["run_id"] == run

    # pidstat: nginx %CPU summed over its worker pids, one value per second.
    r = client.get(f"/api/projects/{slug}/compare/overlay", params={
        "experiments": ["default"], "role": "proxy", "metric": "pidstat.cpu_pct[nginx]", "max_points": 10})
    line = r.json()["experiments"][0]["runs"][0]["lines"][0]
    assert line["v"][0] == 30.0 + 53.0 + 44.0  # the three nginx pids in the first second of default run 1
    r = client.get(f"/api/projects/{slug}/compare/overlay", params={
        "experiments": ["default"], "role": "proxy", "metric": "vmstat.cs", "max_points": 10})
    line = r.json()["experiments"][0]["runs"][0]["lines"][0]
    assert len(line["t"]) <= 10 and line["downsampled"] is True  # 11 samples averaged into <= 10 buckets
    r = client.get(f"/api/projects/{slug}/compare/overlay", params={
        "experiments": ["default"], "role": "proxy", "metric": "vmstat.cs", "max_points": 10, "t_start_s": 2,
        "t_end_s": 5})
    line = r.json()["experiments"][0]["runs"][0]["lines"][0]
    assert line["t"] and min(line["t"]) >= 2 and max(line["t"]) <= 5
    bad = client.get(f"/api/projects/{slug}/compare/overlay", params={
        "experiments": ["default"], "role": "proxy", "metric": "vmstat.sy; drop table run"})
    assert bad.status_code == 400


def test_syscalls_side_by_side_sorted_by_what_changed_most(client: TestClient, investigation: Investigation) -> None:
    doc = _compare(client, investigation.slug, baseline="default", experiments=["buffers-128x4k", "buffers-4x128k"]
                   ).json()
    table = doc["syscalls"][0]
    assert (table["role"], table["process"]) == ("proxy", "nginx")
    top = [r["syscall"] for r in table["rows"][:2]]
    assert set(top) == {"readv", "writev"}
    readv = next(r for r in table["rows"] if r["syscall"] == "readv")
    writev = next(r for r in table["rows"] if r["syscall"] == "writev")
    # DESIGN.md: 128 x 4k buffers multiply readv calls; 4 x 128k make readv one call per response.
    assert readv["cells"]["default"]["calls"] == 38037 and readv["cells"]["buffers-128x4k"]["calls"] == 150481
    # Compared per request (calls / the requests nginx read in the window): the raw counts of default's runs
    # spread 31,776-48,049 with the load, their 5.48-5.52 readv per request does not.
    assert readv["cells"]["buffers-128x4k"]["calls_per_request_delta_pct"] > 150
    assert readv["cells"]["buffers-128x4k"]["calls_per_request_verdict"] == "increased"
    assert writev["cells"]["buffers-128x4k"]["calls"] == 10040
    assert writev["cells"]["buffers-128x4k"]["calls_per_request_verdict"] == "decreased"
    assert readv["summary"]["buffers-128x4k"] == "readv 5.51 -> 15.0 calls/req (38037 -> 150481 calls)"
    assert table["totals"]["default"]["calls"] > 0


def test_what_changed_diffs_the_nginx_config_and_names_the_knob(client: TestClient, investigation: Investigation
                                                                ) -> None:
    doc = _compare(client, investigation.slug, baseline="default", experiments=["buffers-128x4k", "buffers-4x128k"]
                   ).json()
    by_exp = {c["experiment"]: c for c in doc["changes"]}
    knobs = by_exp["buffers-4x128k"]["knob_changes"]
    assert [(k["component"], k["knob"], k["before"], k["after"]) for k in knobs] == [
        ("nginx", "proxy_buffers", "8 4k (default)", "4 128k")]
    assert knobs[0]["context"] == "http > server > location /"
    conf = next(f for f in by_exp["buffers-4x128k"]["files"] if f["name"] == "nginx.conf")
    assert conf["status"] == "changed" and "+      proxy_buffers 4 128k;" in conf["diff"]
    assert conf["diff"].startswith("--- default/nginx.conf\n+++ buffers-4x128k/nginx.conf")
    assert by_exp["buffers-128x4k"]["knob_changes"][0]["after"] == "128 4k"
    facts = [f for f in by_exp["buffers-4x128k"]["files"] if f["kind"] == "host_facts"]
    assert {f["role"] for f in facts} == {"loadgen", "proxy"} and all(f["status"] == "same" for f in facts)
    # Against direct (no nginx in front), the config was added: a diff, but no knob to guess at.
    doc = _compare(client, investigation.slug, experiments=["default"]).json()
    conf = next(f for f in doc["changes"][0]["files"] if f["name"] == "nginx.conf")
    assert conf["status"] == "added" and doc["changes"][0]["knob_changes"] == []


def test_a_lost_config_snapshot_does_not_break_the_comparison(
    client: TestClient, investigation: Investigation, session: Any
) -> None:
    from perflab.artifacts.storage import get_storage
    from sqlalchemy import text

    keys = session.execute(text("SELECT storage_key FROM artifact WHERE kind = 'config'")).scalars().all()
    for key in keys:
        get_storage().delete(key)
    doc = _compare(client, investigation.slug, baseline="default", experiments=["buffers-4x128k"]).json()
    conf = next(f for f in doc["changes"][0]["files"] if f["name"] == "nginx.conf")
    assert conf["status"] == "binary" and "not diffed" in conf["diff"]
    assert _row(doc, "wrk.requests_per_sec")["cells"]["buffers-4x128k"]["verdict"] == "better"


def test_top_movers_rank_every_section_with_significance(client: TestClient, investigation: Investigation) -> None:
    doc = _compare(client, investigation.slug).json()
    movers = doc["top_movers"]
    assert 0 < len(movers) <= 25
    sections = {m["section"] for m in movers}
    assert {"syscalls", "telemetry"} <= sections
    flags = [m["significant"] for m in movers]
    assert flags == sorted(flags, reverse=True)  # significant findings first
    readv = next(m for m in movers if m["key"] == "strace.nginx.readv.calls_per_request"
                 and m["experiment"] == "buffers-128x4k")
    assert readv["unit"] == "calls/req" and readv["value"] > 14.9
    assert readv["text"] == "proxy nginx readv 0.00 -> 15.0 calls/req (0 -> 150481 calls)", readv["text"]
    doc = _compare(client, investigation.slug, baseline="default", experiments=["buffers-4x128k"]).json()
    rps = [m for m in doc["top_movers"] if m["key"] == "wrk.requests_per_sec"]
    assert rps and rps[0]["verdict"] == "better" and rps[0]["delta_pct"] > 70
    # Bytes a second read as such, like the results table, not as 842478387 -> 1599875318.
    xfer = next(m for m in doc["top_movers"] if m["key"] == "wrk.transfer_per_sec_bytes")
    assert re.fullmatch(r"Transfer/sec: \d+\.\d MiB/s -> \d\.\d GiB/s \(\+\d+\.\d%\)", xfer["text"]), xfer["text"]


def test_exports_csv_neutralises_formulas_and_keeps_numbers(
    client: TestClient, investigation: Investigation, bearer: Callable[[str], TestClient]
) -> None:
    slug = investigation.slug
    evil = '=HYPERLINK("http://x")'
    agent = bearer(investigation.token)
    run_id = str(uuid.uuid4())
    agent.post("/api/agent/runs", json={"run_id": run_id, "experiment": evil, "wait_for_roles": ["loadgen"]})
    agent.post(f"/api/agent/runs/{run_id}/join", json={"agent_id": "agent-loadgen-0001", "role": "loadgen"})
    lines = [[time.time(), 1.0, ln] for ln in (CAPTURE / "default" / "run1" / "wrk.txt").read_text().splitlines()]
    agent.post("/api/ingest/batches", json={"agent_id": "agent-loadgen-0001", "batches": [
        {"run_id": run_id, "stream": "load", "source": "wrk", "role": "loadgen", "seq": 1, "lines": lines,
         "closed": True}]})
    agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0})
    wait_parsed(run_id)

    r = client.get(f"/api/projects/{slug}/compare/export.csv", params={"baseline": "direct",
                                                                      "experiments": ["default", evil]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    evil_rows = [row for row in rows if row["experiment"].endswith(evil)]
    assert evil_rows and all(row["experiment"] == "'" + evil for row in evil_rows)
    assert not any(v.startswith(("=", "+", "@")) for row in rows for v in row.values())
    rps = next(row for row in rows if row["key"] == "wrk.requests_per_sec" and row["experiment"] == "default")
    assert float(rps["median"]) == 6713.8 and rps["delta_pct"] == "-47.5"  # numbers stay numbers, no quote
    # Each run's value, and why a verdict is not decided, are in the CSV too.
    assert sorted(float(v) for v in rps["run_values"].split(";")) == sorted(_rps("default"))
    assert rps["verdict"] == "worse" and rps["undecided_reason"] == "" and float(rps["detectable_pct"]) > 0
    evil_rps = next(row for row in evil_rows if row["key"] == "wrk.requests_per_sec")
    assert evil_rps["verdict"] == "not_decided" and "no noise estimate" in evil_rps["undecided_reason"]
    assert {row["section"] for row in rows} >= {"results", "telemetry", "syscalls"}

    r = client.get(f"/api/projects/{slug}/compare/export.json", params={"baseline": "direct",
                                                                       "experiments": ["default"]})
    assert r.headers["content-disposition"].startswith("attachment;") and r.json()["baseline"] == "direct"
    md = client.get(f"/api/projects/{slug}/compare/markdown", params={"baseline": "direct",
                                                                      "experiments": ["default", evil]}).text
    assert md.startswith("| metric | direct (baseline, 3 runs) | default (3 runs) |")
    assert "| Requests/sec | 12789.39 ⚠ | 6713.80 (-47.5%, ❌ worse) |" in md
    assert "=HYPERLINK(\"http://x\") (1 run)" in md
    assert "| p50 latency | 4.17ms ⚠ | 11.79ms (+183%, ❌ worse) |" in md


def test_compare_reads_precomputed_data_only_in_a_bounded_number_of_queries(
    client: TestClient, investigation: Investigation, db_engine: Any
) -> None:
    # What keeps compare fast at any run length (the bench times it at 121M samples): it never reads
    # raw samples, and its query count does not grow with the number of runs or series.
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        # The app's background loops poll meanwhile on their own threads (the parse worker; webhook
        # deliveries, through asyncio.to_thread): not compare's queries.
        if not threading.current_thread().name.startswith(("perflab-parse", "asyncio_")):
            statements.append(statement)

    event.listen(db_engine, "before_cursor_execute", record)
    try:
        _compare(client, investigation.slug)
    finally:
        event.remove(db_engine, "before_cursor_execute", record)
    assert statements and not any(re.search(r"\b(FROM|JOIN)\s+series_chunk\b", st, re.IGNORECASE) for st in statements)
    assert len(statements) <= 20, len(statements)


def test_columns_list_each_runs_profiles_so_the_page_can_link_a_flame_graph_diff(
    client: TestClient, investigation: Investigation
) -> None:
    ids = {}
    for exp in ("default", "buffers-4x128k"):
        run_id = investigation.runs[exp][0]
        body = (CAPTURE / exp / "stacks.folded").read_bytes()
        r = client.post(f"/api/runs/{run_id}/profiles", params={"role": "proxy", "name": "perf"}, content=body)
        assert r.status_code == 201, r.text
        ids[exp] = r.json()["profile_id"]
    doc = _compare(client, investigation.slug).json()
    by_name = {c["name"]: c for c in doc["columns"]}
    assert by_name["default"]["runs"][0]["profile_ids"] == [ids["default"]]
    assert by_name["buffers-4x128k"]["runs"][0]["profile_ids"] == [ids["buffers-4x128k"]]
    assert by_name["direct"]["runs"][0]["profile_ids"] == []
