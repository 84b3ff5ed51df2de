"""The one-shot commands on the oldest supported Python: upload, import, compare; and the shipped forms of the
agent: a zipapp that runs on Python 3.6, and sources that vermin finds 3.6-compatible."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import AGENTS, PY36, ROOT, run_agent

PERF_SCRIPT = "nginx  7001  627.365954:    2004008 cpu-clock:ppp:\n\t  24a385 ngx_http_process+0x3b5 (/usr/sbin/nginx)\n\n"
COMPARE = {"baseline": "direct", "experiments": ["direct", "default"],
           "metrics": [{"key": "wrk.requests_per_sec", "direction": "higher_is_better",
                        "values": {"direct": 12500.0, "default": 6500.0}, "runs": {"direct": 3, "default": 3},
                        "delta_pct": {"default": -48.0}, "verdict": {"default": "worse"}}]}


def test_upload_a_flame_graph_and_a_config(server: FakeServer, tmp_path: Path) -> None:
    run_id = server.create_run()
    profile = tmp_path / "perf-script.txt.gz"
    profile.write_bytes(gzip.compress(PERF_SCRIPT.encode()))
    conf = tmp_path / "nginx.conf"
    conf.write_text("proxy_buffers 4 128k;\n")
    result = run_agent(server.url, server.token, "upload", "--run", run_id, "--role", "proxy",
                       "--flamegraph", str(profile), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"profile_id": 1, "format": "perf-script", "unit": "samples", "total": 1,
                                         "frames": 1, "lossy": False}
    assert server.profiles[0]["data"].decode() == PERF_SCRIPT and server.profiles[0]["name"] == profile.name
    result = run_agent(server.url, server.token, "upload", "--run", run_id, "--file", str(conf), "--kind", "config")
    assert result.returncode == 0 and "artifact 1 (config)" in result.stdout
    assert (server.artifacts[0]["kind"], server.artifacts[0]["body"]) == ("config", b"proxy_buffers 4 128k;\n")
    missing = run_agent(server.url, server.token, "upload", "--run", run_id, "--file", str(tmp_path / "nope"))
    assert missing.returncode == 1 and "No such file" in missing.stderr


def test_upload_unit_of_a_folded_file_is_sent_with_it(server: FakeServer, tmp_path: Path) -> None:
    # A folded file's counts can be anything; --unit says what. Real stackcollapse-perf.pl output.
    run_id = server.create_run()
    folded = tmp_path / "stacks.folded"
    folded.write_bytes((ROOT / "tests/fixtures/profiles/nginx-proxy-buffers/direct/stacks.folded").read_bytes())
    result = run_agent(server.url, server.token, "upload", "--run", run_id, "--flamegraph", str(folded),
                       "--unit", "nanoseconds", "--json")
    assert result.returncode == 0, result.stderr
    assert server.profiles[0]["unit"] == "nanoseconds"
    plain = run_agent(server.url, server.token, "upload", "--run", run_id, "--flamegraph", str(folded))
    assert plain.returncode == 0 and server.profiles[1]["unit"] is None
    wrong = run_agent(server.url, server.token, "upload", "--run", run_id, "--flamegraph", str(folded),
                      "--unit", "bytes")
    assert wrong.returncode == 2 and "invalid choice: 'bytes'" in wrong.stderr and len(server.profiles) == 2


def test_import_sends_text_as_is_and_gzip_as_base64(server: FakeServer, tmp_path: Path) -> None:
    wrk = tmp_path / "wrk.txt"
    wrk.write_text("Requests/sec:  12722.92\n")
    perf = tmp_path / "perf-script.txt.gz"
    perf.write_bytes(gzip.compress(PERF_SCRIPT.encode()))
    args = ["import", "--project", "demo", "--experiment", "default", "--run-label", "from notes", "--json",
            str(wrk), str(perf)]
    first = run_agent(server.url, server.token, *args)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["duplicate"] is False and doc["run_id"]
    sent = server.imports[0]["doc"]
    assert (sent["experiment"], sent["label"]) == ("default", "from notes")
    assert sent["files"][0] == {"name": "wrk.txt", "content": "Requests/sec:  12722.92\n"}
    assert sent["files"][1]["encoding"] == "base64" and sent["files"][1]["name"] == perf.name
    again = run_agent(server.url, server.token, *args[:-3], str(wrk), str(perf))
    assert again.returncode == 0 and again.stdout.strip() == doc["run_id"]
    assert "imported before" in again.stderr


def test_import_lists_every_part_of_a_file_holding_several_outputs(server: FakeServer, tmp_path: Path) -> None:
    paste = tmp_path / "pasted-1.txt"
    paste.write_text("Running 10s test @ http://x/\n...\nhello\n\n% time     seconds  usecs/call     calls syscall\n")
    # The parts as the server answers them (tests/imports/test_split.py checks the server side).
    server.import_files = [
        {"name": "pasted-1.txt", "kind": "wrk", "ok": True, "warnings": [], "start_line": 1, "end_line": 2},
        {"name": "pasted-1.txt", "kind": None, "ok": True, "imported": False, "start_line": 3, "end_line": 3,
         "warnings": ["line 3 is not the output of a tool perflab knows (starting 'hello'); not imported"]},
        {"name": "pasted-1.txt", "kind": "strace-c", "ok": True, "warnings": [], "start_line": 5, "end_line": 5},
        {"name": "client.log", "kind": None, "ok": True, "imported": False, "attachment": True, "warnings": [],
         "note": "not recognised: no parser knows this output; kept as an attachment of the run (name its kind to "
                 "read it)", "start_line": 1, "end_line": 2},
    ]
    base = ["import", "--project", "demo", "--experiment", "direct"]
    as_json = run_agent(server.url, server.token, *base, "--json", str(paste))
    assert as_json.returncode == 0, as_json.stderr
    assert [f["kind"] for f in json.loads(as_json.stdout)["files"]] == ["wrk", None, "strace-c", None]
    text = run_agent(server.url, server.token, *base, "--run-label", "again", str(paste))
    assert text.returncode == 0, text.stderr
    assert "pasted-1.txt (lines 1-2): wrk" in text.stderr
    assert "pasted-1.txt (lines 3-3): not recognised, not imported" in text.stderr
    assert "pasted-1.txt (lines 5-5): strace-c" in text.stderr
    # a whole file kept unread: the note the preview shows, word for word
    assert "client.log: not recognised: no parser knows this output; kept as an attachment of the run" in text.stderr


def test_compare_as_json_markdown_and_table(server: FakeServer) -> None:
    server.compare_response = COMPARE
    base = ["compare", "--project", "demo", "--baseline", "direct", "default", "buffers-4x128k"]
    as_json = run_agent(server.url, server.token, *base, "--format", "json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == COMPARE
    assert server.compare_queries[0] == {"baseline": ["direct"], "experiments": ["default", "buffers-4x128k"]}
    markdown = run_agent(server.url, server.token, *base, "--format", "markdown").stdout.splitlines()
    assert markdown[0] == "| metric | direct (baseline, 3 runs) | default (3 runs) |"
    assert "-48.0%, ❌ worse" in markdown[2]
    table = run_agent(server.url, server.token, *base).stdout
    assert table.splitlines()[0].split() == ["metric", "direct", "(baseline,", "3", "runs)", "default", "(3", "runs)"]


# What the server answers (abridged): default is decided slower, its p99 not decided; broken has no
# valid run (every response was an error).
GATE = {"baseline": "direct", "experiments": ["direct", "default", "broken"], "metrics": [
    {"key": "wrk.requests_per_sec", "direction": "higher_is_better",
     "values": {"direct": 12789.39, "default": 6713.8, "broken": None}, "runs": {"direct": 3, "default": 3, "broken": 0},
     "delta_pct": {"direct": 0.0, "default": -47.5, "broken": None},
     "verdict": {"direct": "equivalent", "default": "worse", "broken": "invalid"}},
    {"key": "wrk.latency_percentiles_ms.99", "direction": "lower_is_better",
     "values": {"direct": 470.0, "default": 480.0, "broken": None}, "runs": {"direct": 3, "default": 3, "broken": 0},
     "delta_pct": {"direct": 0.0, "default": 2.1, "broken": None},
     "verdict": {"direct": "equivalent", "default": "not_decided", "broken": "invalid"},
     "undecided_reason": {"direct": None, "default": "the change is within what these runs can tell from noise",
                          "broken": None},
     "detectable_pct": {"direct": 6.2, "default": 9.8, "broken": None},
     "runs_needed": {"direct": None, "default": 14, "broken": None}}],
    "columns": [{"name": "direct", "runs": [{"included": True}] * 3},
                {"name": "default", "runs": [{"included": True}] * 3},
                {"name": "broken", "runs": [{"included": False}]}]}


def _without(doc: dict[str, Any], name: str) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    out["experiments"].remove(name)
    out["columns"] = [c for c in out["columns"] if c["name"] != name]
    return out


def test_the_ci_gate_exits_3_only_on_a_decided_worse_and_4_on_what_it_could_not_judge(server: FakeServer) -> None:
    server.compare_response = GATE
    base = ["compare", "--project", "demo", "--baseline", "direct", "default", "broken", "--fail-on", "worse"]
    worse = run_agent(server.url, server.token, *base)
    assert worse.returncode == 3, worse.stderr
    assert "FAIL default: wrk.requests_per_sec is worse than direct (-47.5%, 3 runs vs 3)" in worse.stderr
    assert "NOT JUDGED broken: wrk.requests_per_sec not judged: no valid run" in worse.stderr
    assert "broken (0 runs, 1 invalid left out)" in worse.stdout
    # A candidate with no valid run was not measured: never a pass, and not "worse" either (exit 4).
    p99_broken = run_agent(server.url, server.token, *base, "--metric", "latency_percentiles_ms.99", "--format", "json")
    assert p99_broken.returncode == 4, p99_broken.stderr
    assert json.loads(p99_broken.stdout) == GATE
    assert "FAIL default" not in p99_broken.stderr
    # Not decided passes `--fail-on worse` loudly, with what would decide it, and fails `worse,undecided`.
    server.compare_response = _without(GATE, "broken")
    p99 = ["compare", "--project", "demo", "--baseline", "direct", "default", "--metric", "latency_percentiles_ms.99"]
    p99_only = run_agent(server.url, server.token, *p99, "--fail-on", "worse", "--format", "markdown")
    assert p99_only.returncode == 0, p99_only.stderr
    assert ("NOT DECIDED default: wrk.latency_percentiles_ms.99 not decided (+2.1%): 3 vs 3 runs detect about "
            "±9.8%; ~14 more runs a side would decide") in p99_only.stderr
    assert "**CI gate passed** (exit 0)" in p99_only.stdout
    assert "? not decided (3 vs 3 runs detect about ±9.8%; ~14 more runs a side would decide)" in p99_only.stdout
    strict = run_agent(server.url, server.token, *p99, "--fail-on", "worse,undecided", "--format", "markdown")
    assert strict.returncode == 4, strict.stderr
    assert "**CI gate failed: not decided** (exit 4)" in strict.stdout
    assert "FAIL default: wrk.latency_percentiles_ms.99 not decided" in strict.stderr
    bad = run_agent(server.url, server.token, *p99, "--fail-on", "worse,maybe")
    assert bad.returncode == 2 and "--fail-on takes worse and/or undecided" in bad.stderr
    server.compare_response = GATE
    unknown = run_agent(server.url, server.token, *base, "--metric", "wrk.p99.9")
    assert unknown.returncode == 2 and "no metric 'wrk.p99.9'" in unknown.stderr
    # Without --fail-on, a worse result is still a successful report.
    assert run_agent(server.url, server.token, *base[:-2]).returncode == 0
    included = run_agent(server.url, server.token, *base, "--include-invalid")
    assert included.returncode == 3 and server.compare_queries[-1]["include_invalid"] == ["true"]


def test_the_ci_gate_never_passes_a_candidate_it_did_not_judge(server: FakeServer) -> None:
    """Issue 21: no run, only a still-running run, or a single run 50% worse used to exit 0."""
    rps = {"key": "wrk.requests_per_sec", "direction": "higher_is_better", "values": {"direct": 12789.39},
           "delta_pct": {"direct": 0.0}}
    cases = {
        # The candidate has no run, or only a running one (no finished wrk result): the server has no value.
        "no run": ({"direct": 3, "pr": 0}, {"direct": "equivalent", "pr": "no_data"}, None),
        # One run 50% worse: no noise estimate, so not decided; it must not pass.
        "one run": ({"direct": 3, "pr": 1}, {"direct": "equivalent", "pr": "not_decided"}, -50.0),
    }
    for what, (runs, verdict, delta) in cases.items():
        server.compare_response = {"baseline": "direct", "experiments": ["direct", "pr"], "metrics": [
            dict(rps, runs=runs, verdict=verdict, values={"direct": 12789.39, "pr": None if delta is None else 6400.0},
                 delta_pct={"direct": 0.0, "pr": delta})]}
        gate = run_agent(server.url, server.token, "compare", "--project", "demo", "--baseline", "direct", "pr",
                         "--fail-on", "worse", "--metric", "requests_per_sec")
        assert gate.returncode == 4, (what, gate.stderr)
        assert "NOT JUDGED pr: wrk.requests_per_sec not judged" in gate.stderr, what
    assert "one run gives no noise estimate (-50.0%, 1 runs vs 3)" in gate.stderr


def test_usage_errors_exit_2_without_contacting_the_server(server: FakeServer, tmp_path: Path) -> None:
    no_command = run_agent(server.url, server.token, "run", "--state-dir", str(tmp_path), "--project", "demo",
                           "--experiment", "e")
    assert no_command.returncode == 2 and "load command is missing" in no_command.stderr
    bad_spec = run_agent(server.url, server.token, "daemon", "--collect", "pidstat:")
    assert bad_spec.returncode == 2 and "pidstat needs a process name" in bad_spec.stderr
    no_server = run_agent("", server.token, "compare", "--project", "demo", "--baseline", "a")
    assert no_server.returncode == 2 and "--server" in no_server.stderr
    assert server.requests == []


def test_zipapp_builds_and_runs_on_python_3_6(tmp_path: Path) -> None:
    sys.path.insert(0, str(AGENTS))
    import build_zipapp

    out = build_zipapp.build(str(tmp_path / "dist" / "perflab-agent.pyz"))
    version = subprocess.run([PY36, out, "--version"], capture_output=True, text=True, timeout=30, check=False)
    assert version.returncode == 0 and version.stdout.strip() == "perflab-agent 0.1.0"
    # The same command line the server uses, and the same bytes for the same sources.
    subprocess.run([sys.executable, str(AGENTS / "build_zipapp.py"), str(tmp_path / "again.pyz")], check=True,
                   capture_output=True, timeout=60)
    assert Path(out).read_bytes() == (tmp_path / "again.pyz").read_bytes()
    dry_run = subprocess.run([PY36, out, "daemon", "--test", "--collect", "vmstat"], capture_output=True, check=False,
                             text=True, timeout=60)
    assert dry_run.returncode == 0 and '"stream": "vmstat"' in dry_run.stdout


def test_agent_sources_run_on_python_3_6() -> None:
    vermin = Path(sys.executable).parent / "vermin"
    result = subprocess.run([str(vermin), "--target=3.6-", "--no-tips", "--violations", str(AGENTS / "perflab_agent"),
                             str(AGENTS / "build_zipapp.py")], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_of_a_transcript_says_per_part_what_the_preview_says(server: FakeServer, tmp_path: Path) -> None:
    from perflab.imports.analyse import preview
    from perflab.imports.schemas import FilePreview, ImportFile

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "composed_rhel_cpuset45_nginx.txt"
    session = tmp_path / "session.txt"
    session.write_text(fixture.read_text())
    # The server's answer is its real analysis of this file, as the API serialises it.
    parts = [FilePreview.model_validate(p).model_dump(mode="json")
             for p in preview([ImportFile(name="session.txt", content=fixture.read_text())])]
    server.import_files = parts
    out = run_agent(server.url, server.token, "import", "--project", "demo", "--experiment", "pinned", str(session))
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert "session.txt (lines 1-2): host-facts" in lines and "session.txt (lines 49-54): vmstat" in lines
    route = next(p for p in parts if p["start_line"] == 55)
    assert f"session.txt (lines 55-57): {route['note']}" in lines and "`ip route`" in route["note"]
    assert "session.txt (lines 61-79): config" in lines
