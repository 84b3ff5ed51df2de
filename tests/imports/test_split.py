"""One paste holding several tools' outputs, and imported runs timed by their data.

The texts are the real proxy_buffers capture (tests/fixtures/captures, copied from
shared/captures/nginx-proxy-buffers) concatenated the way an engineer pastes a terminal.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from datetime import datetime
from typing import Any

from fastapi.testclient import TestClient
from perflab.parsers import cli as parse_cli
from perflab.parsers.split import one_output, split

from tests.conftest import FIXTURES

DIRECT1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "direct" / "run1"
WRK = (DIRECT1 / "wrk.txt").read_text()
STRACE_C = (DIRECT1 / "strace-c.txt").read_text()
VMSTAT = (DIRECT1 / "vmstat.txt").read_text()
PIDSTAT = (DIRECT1 / "pidstat.txt").read_text()
PASTE = WRK + STRACE_C  # no blank line between: the strace -c header follows Transfer/sec


def _parts(text: str) -> list[tuple[str | None, int, int]]:
    return [(p["kind"], p["start_line"], p["end_line"]) for p in split(text)]


def test_wrk_then_strace_c_in_one_text_is_two_parts() -> None:
    wrk_lines = len(WRK.splitlines())
    assert _parts(PASTE) == [("wrk", 1, wrk_lines), ("strace-c", wrk_lines + 1, len(PASTE.splitlines()))]


def test_every_line_lands_in_a_part_and_unknown_lines_are_reported() -> None:
    text = "$ wrk -t2 -c100 -d10s http://127.0.0.1:18091/page.html\n" + WRK + "\n" + PIDSTAT + "\n" + VMSTAT \
        + "\nthat was with proxy_buffers 8 4k\n"
    parts = split(text)
    # the prompt line names wrk's part (issue 18: transcripts); what was pasted below it is split as before
    assert [p["kind"] for p in parts] == ["wrk", "pidstat", "vmstat", None]
    assert parts[0]["start_line"] == 1 and parts[0]["command"].startswith("wrk -t2 -c100")
    assert "command" not in parts[1]
    assert parts[-1]["preview"] == ["that was with proxy_buffers 8 4k"] and parts[-1]["warnings"]
    covered = sum(p["end_line"] - p["start_line"] + 1 for p in parts)
    blank_between = len(text.splitlines()) - covered
    assert blank_between == 3  # only the blank separators are outside the parts


def test_a_single_tools_output_is_one_part_spanning_the_whole_text() -> None:
    # host-facts/files/ holds single command outputs too (nproc, lscpu, ip route), one folder deeper.
    for path in sorted([*FIXTURES.glob("*/*.txt"), *FIXTURES.glob("host-facts/files/*.txt")]):
        if path.parent.name == "transcripts":
            continue  # terminal sessions: one part per command, by design (tests/parsers/test_transcripts.py)
        text = path.read_text(errors="replace")
        parts = split(text)
        assert len(parts) == 1, (path.name, _parts(text))
        if path.parent.name == "refused":
            # Other tools' tables (vmstat -d, -s...): one part, reported as nothing perflab knows.
            assert parts[0]["kind"] is None and parts[0]["warnings"], path.name
            assert parts[0]["text"].strip() == text.strip()
        else:
            assert parts[0]["text"] == text


def test_one_output_is_told_without_splitting_and_never_when_split_would_cut() -> None:
    """An import splits only what may hold several outputs: one_output (a scan) must never say "one" for a text
    split() cuts, on every fixture (transcripts, pastes, refused tables included), and must say it for one
    tool's output (else the import pays for a split it did not need)."""
    told = whole = 0
    for path in sorted(FIXTURES.glob("**/*")):
        if not path.is_file() or path.suffix in (".json", ".gz", ".svg", ".folded") or path.stat().st_size > 2_000_000:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        parts = len(split(text))
        whole += parts <= 1
        if one_output(text):
            told += 1
            assert parts <= 1, (path, _parts(text))
    # Those it leaves to split: a few blank-line separated blocks (pidstat's intervals, k6's sections), which
    # only the detectors tell apart. 194 of 294 when written.
    assert told >= 0.6 * whole, (told, whole)
    banner, intervals = PIDSTAT.split("\n", 1)
    long_pidstat = banner + "\n" + intervals * 40  # more blank-line separated blocks than split examines
    for text in (WRK, STRACE_C, VMSTAT, long_pidstat):
        assert one_output(text) and len(split(text)) == 1
    for text in (PASTE, WRK + "\n" + VMSTAT, VMSTAT + "\n" + PIDSTAT):
        assert len(split(text)) > 1 and not one_output(text), text[:80]
    # A transcript (its prompt names the kind) and a coloured paste: split reads them.
    assert not one_output("$ vmstat 1\n" + VMSTAT) and not one_output("\x1b[1m" + WRK)


def test_perflab_parse_auto_reports_every_part() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        code = parse_cli.main(["parse", "auto", "-"], stdin=io.BytesIO(PASTE.encode()))
    assert code == 0
    doc = json.loads(out.getvalue())
    assert doc["kind"] == "parts" and [p["kind"] for p in doc["parts"]] == ["wrk", "strace-c"]
    assert doc["parts"][0]["result"]["requests_per_sec"] == 11976.15
    writev = next(s for s in doc["parts"][1]["result"]["syscalls"] if s["syscall"] == "writev")
    assert writev["calls"] == 13302


def test_import_of_a_one_file_paste_gives_wrk_and_strace_c(client: TestClient, project: dict[str, Any]) -> None:
    slug = project["slug"]
    files = [{"name": "pasted-1.txt", "content": PASTE, "role": "proxy"}]
    r = client.post(f"/api/projects/{slug}/imports/preview", json={"files": files})
    assert r.status_code == 200, r.text
    parts = r.json()["files"]
    assert [(p["kind"], p["start_line"]) for p in parts] == [("wrk", 1), ("strace-c", 14)]
    assert parts[0]["preview"]["requests_per_sec"] == 11976.15
    assert parts[1]["preview"]["top"][0] == "writev"

    files[0]["role"] = None
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": "direct", "files": files})
    assert r.status_code == 201, r.text
    detail = client.get(f"/api/runs/{r.json()['run_id']}").json()
    assert detail["headline"]["requests_per_sec"] == 11976.15
    assert {s["kind"] for s in detail["summaries"]} >= {"wrk", "strace-c"}


def test_unrecognised_lines_in_an_import_are_listed_not_imported(client: TestClient,
                                                                  project: dict[str, Any]) -> None:
    text = WRK + "\nnote to self: rerun with 4 threads\n\n" + STRACE_C
    r = client.post(f"/api/projects/{project['slug']}/imports",
                    json={"experiment": "direct", "files": [{"name": "notes.txt", "content": text}]})
    assert r.status_code == 201, r.text
    entries = r.json()["files"]
    assert [(e["kind"], e["imported"]) for e in entries] == [("wrk", True), (None, False), ("strace-c", True)]
    assert "not imported" in entries[1]["warnings"][0] and entries[1]["start_line"] == 15


def test_an_imported_run_starts_when_its_data_says(client: TestClient, project: dict[str, Any]) -> None:
    files = [{"name": "wrk.txt", "content": WRK}, {"name": "vmstat.txt", "content": VMSTAT, "role": "proxy"},
             {"name": "pidstat.txt", "content": PIDSTAT, "role": "proxy"}]
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "direct", "files": files})
    assert r.status_code == 201, r.text
    run = client.get(f"/api/runs/{r.json()['run_id']}").json()
    # vmstat -t printed "2026-11-22 02:03:41" under a UTC label; pidstat starts at 02:03:42.
    start = datetime.fromisoformat(run["started_at"])
    end = datetime.fromisoformat(run["ended_at"])
    assert start.isoformat().startswith("2026-11-22T02:03:41")
    assert (end - start).total_seconds() >= 10.06  # wrk ran for 10.06 s
    assert (end - start).total_seconds() < 60
    # pidstat's times carry no zone: the run says how they were read.
    assert any("read as UTC" in reason for reason in run["status_reasons"])


def test_an_import_with_no_time_in_it_says_so(client: TestClient, project: dict[str, Any]) -> None:
    r = client.post(f"/api/projects/{project['slug']}/imports",
                    json={"experiment": "direct", "files": [{"name": "wrk.txt", "content": WRK}]})
    run = client.get(f"/api/runs/{r.json()['run_id']}").json()
    assert any("import time" in reason for reason in run["status_reasons"])
    start = datetime.fromisoformat(run["started_at"])
    end = datetime.fromisoformat(run["ended_at"])
    assert round((end - start).total_seconds(), 2) == 10.06


def test_a_logs_time_window_and_whether_a_zone_was_assumed() -> None:
    # Only the first and last stamps are parsed for the window; the rest are checked for a naive one
    # by their offset. One naive stamp anywhere still makes the run say its times were read as UTC.
    from perflab.imports.service import data_times

    aware = [f"2026-11-22T02:00:{s:02d}+01:00" for s in range(50)]
    got = data_times("vmstat", {"samples": [{"timestamp": v} for v in ["garbage", *aware, None]]})
    assert (got["start"].isoformat(), got["end"].isoformat(), got["naive"]) == (
        "2026-11-22T02:00:00+01:00", "2026-11-22T02:00:49+01:00", False)
    mixed = [*aware[:20], "2026-11-22T02:00:20", *aware[21:]]
    assert data_times("vmstat", {"samples": [{"timestamp": v} for v in mixed]})["naive"] is True
    zulu = [f"2026-11-22T02:00:{s:02d}Z" for s in range(3)]
    got = data_times("pidstat", {"samples": [{"timestamp": v} for v in zulu]})
    assert got["naive"] is False and got["end"].isoformat() == "2026-11-22T02:00:02+00:00"
    naive = data_times("vmstat", {"samples": [{"timestamp": "2026-11-22T02:00:00"}]})
    assert naive["naive"] is True and naive["start"].tzinfo is not None
    assert data_times("vmstat", {"samples": [{"timestamp": "x"}]})["start"] is None
