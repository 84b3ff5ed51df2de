"""The compare page's strace -c table compares calls per request, so an experiment that served more requests
does not look worse for making more calls (issue 19, item 12).

A run's requests are those its traced process read in the strace window: its recvfrom calls, as the
copy-bound-proxy finding counts them. Figures are checked against values computed here from the raw
capture files (tests/fixtures/captures/nginx-proxy-buffers), not against the server's own parser.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.compare.investigation import CAPTURE, Investigation

# `% time  seconds  usecs/call  calls  errors syscall`; errors may be blank.
_ROW = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(?:(\d+)\s+)?([a-z_0-9]+)\s*$")


def _table(path: Path) -> dict[str, tuple[int, float]]:
    """syscall -> (calls, seconds), read from the raw strace -c output."""
    out: dict[str, tuple[int, float]] = {}
    for line in path.read_text().splitlines():
        m = _ROW.match(line)
        if m and m.group(6) != "total":
            out[m.group(6)] = (int(m.group(4)), float(m.group(2)))
    return out


def _syscalls(client: TestClient, slug: str, baseline: str, experiments: list[str]) -> dict[str, Any]:
    r = client.get(f"/api/projects/{slug}/compare", params={"baseline": baseline, "experiments": experiments})
    assert r.status_code == 200, r.text
    [table] = r.json()["syscalls"]
    return {row["syscall"]: row for row in table["rows"]}


def test_per_request_values_are_the_raw_counts_over_the_requests_of_the_window(
    client: TestClient, small_investigation: Investigation
) -> None:
    slug = small_investigation.slug
    rows = _syscalls(client, slug, "direct", ["default"])
    for exp in ("direct", "default"):
        tables = [_table(CAPTURE / exp / f"run{n}" / "strace-c.txt") for n in (1, 2, 3)]
        requests = [t["recvfrom"][0] for t in tables]
        assert min(requests) > 0
        for name in {s for t in tables for s in t}:
            cell = rows[name]["cells"][exp]
            calls = [t.get(name, (0, 0.0))[0] for t in tables]
            secs = [t.get(name, (0, 0.0))[1] for t in tables]
            assert cell["calls"] == statistics.median(calls)  # the raw window stays visible
            assert cell["calls_per_request"] == pytest.approx(
                statistics.median(c / q for c, q in zip(calls, requests, strict=True)), rel=1e-9)
            assert cell["usecs_per_request"] == pytest.approx(
                statistics.median(s * 1e6 / q for s, q in zip(secs, requests, strict=True)), rel=1e-9)
            assert cell["requests"] == statistics.median(requests) and cell["n_per_request"] == 3
            assert cell["per_request_note"] is None
    # writev: direct 4.00 a request, default 8.51: worse per request, whatever each run's load was.
    writev = rows["writev"]["cells"]["default"]
    assert writev["calls_per_request_verdict"] == "increased"
    assert writev["calls_per_request_delta_pct"] == pytest.approx(113, abs=1)

    r = client.get(f"/api/projects/{slug}/compare/export.csv", params={"baseline": "direct",
                                                                      "experiments": ["default"]})
    csv_rows = list(csv.DictReader(io.StringIO(r.text)))
    row = next(x for x in csv_rows if x["key"] == "strace.nginx.writev.calls_per_request"
               and x["experiment"] == "default")
    assert row["unit"] == "calls/req" and float(row["median"]) == pytest.approx(writev["calls_per_request"])
    assert row["verdict"] == "increased"
    md = client.get(f"/api/projects/{slug}/compare/markdown", params={"baseline": "direct",
                                                                      "experiments": ["default"]}).text
    assert "| writev | 4.00 calls/req (13,302 calls) | 8.51 calls/req (58,738 calls) +113% up |" in md, md


def _scaled(text: str, factor: int) -> str:
    """The same strace -c table after `factor` times the requests: every count and time multiplied, so
    the calls and time per request are the same."""
    out = []
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            pct, secs, upc, calls, errors, name = m.groups()
            errs = str(int(errors) * factor) if errors else ""
            line = f"{float(pct):6.2f} {float(secs) * factor:11.6f} {int(upc):11d} {int(calls) * factor:9d} " \
                   f"{errs:>9} {name}"
        out.append(line)
    return "\n".join(out) + "\n"


def _wrk_scaled(text: str, factor: int) -> str:
    """wrk's summary of a run that served `factor` times the requests in the same 10 s."""
    text = re.sub(r"(\d+) requests in", lambda m: f"{int(m.group(1)) * factor} requests in", text)
    return re.sub(r"Requests/sec:\s+([\d.]+)", lambda m: f"Requests/sec: {float(m.group(1)) * factor:10.2f}", text)


def _import(client: TestClient, slug: str, experiment: str, n: int, wrk: str, strace_c: str) -> None:
    r = client.post(f"/api/projects/{slug}/imports", json={"experiment": experiment, "label": f"run {n}", "files": [
        {"name": "wrk.txt", "content": wrk, "role": "loadgen"},
        {"name": "strace-c.txt", "content": strace_c, "role": "proxy"}]})
    assert r.status_code == 201, r.text


def test_twice_the_requests_with_the_same_calls_per_request_is_equivalent_not_worse(
    client: TestClient, project: dict[str, Any]
) -> None:
    slug = project["slug"]
    for n in (1, 2, 3):
        folder = CAPTURE / "default" / f"run{n}"
        wrk, strace_c = (folder / "wrk.txt").read_text(), (folder / "strace-c.txt").read_text()
        _import(client, slug, "a", n, wrk, strace_c)
        _import(client, slug, "b-twice-the-load", n, _wrk_scaled(wrk, 2), _scaled(strace_c, 2))
        # A table without recvfrom: the requests of the window are unknown.
        _import(client, slug, "c-unknown", n, wrk, "\n".join(ln for ln in strace_c.splitlines()
                                                              if not ln.rstrip().endswith("recvfrom")) + "\n")
    rows = _syscalls(client, slug, "a", ["b-twice-the-load", "c-unknown"])
    for name in ("writev", "readv"):
        a, b = rows[name]["cells"]["a"], rows[name]["cells"]["b-twice-the-load"]
        assert b["calls"] == 2 * a["calls"]  # the raw window doubled with the load ...
        assert b["calls_per_request"] == pytest.approx(a["calls_per_request"])  # ... per request it did not
        assert b["calls_per_request_verdict"] == "equivalent", b
        # Time per request is as noisy as these 3 runs' times are: no change, never "increased".
        assert b["usecs_per_request_delta_pct"] == pytest.approx(0, abs=0.05)
        assert b["usecs_per_request_verdict"] in ("equivalent", "not_decided"), b
        c = rows[name]["cells"]["c-unknown"]
        assert c["calls"] == a["calls"] and c["calls_per_request"] is None and c["n_per_request"] == 0
        assert c["per_request_note"] == ("requests unknown in 3 of 3 runs: no recvfrom in the traced process's "
                                         "strace -c table")
        assert c["calls_per_request_verdict"] == "not_decided"
        assert "requests unknown" in c["calls_per_request_undecided_reason"]
