"""A finding in a comparison quotes the evidence of every run it fired on, not run 1's numbers (issue 17)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from perflab.compare.findings import merge_findings, merge_text

from tests.compare.investigation import Investigation


def _finding(title: str, *evidence: tuple[str, str, str]) -> dict[str, Any]:
    return {"rule": "copy-bound-proxy", "severity": "warning", "experiment": "default", "run_id": "x", "title": title,
            "evidence": [{"kind": k, "label": label, "value": v, "ref": {}} for k, label, v in evidence],
            "suggestion": None, "docs": ""}


def test_numbers_become_the_median_and_range_of_the_runs_it_fired_on() -> None:
    runs = [
        ("run 1", _finding("sy is 85.4% on proxy", ("syscall", "readv", "31,776 calls, 22.03% of syscall time"),
                           ("series", "sy", "steady-state mean 85.4%, max 89"))),
        ("run 2", _finding("sy is 80.1% on proxy", ("syscall", "readv", "29,002 calls, 20.50% of syscall time"),
                           ("series", "sy", "steady-state mean 80.1%, max 84"))),
        ("run 3", _finding("sy is 82.0% on proxy", ("syscall", "readv", "33,410 calls, 23.10% of syscall time"))),
    ]
    f = merge_findings(runs, of_runs=3)
    assert f["title"] == "sy is 82.0% on proxy"  # the median of 85.4, 80.1, 82.0: not run 1's 85.4
    ev = {e["label"]: e["value"] for e in f["evidence"]}
    assert ev["readv"] == "31,776 (runs 29,002-33,410) calls, 22.03% (runs 20.50-23.10%) of syscall time"
    # A line only two runs have names them, with their median and range.
    assert ev["sy"] == "steady-state mean 82.8% (runs 80.1-85.4%), max 86.5 (runs 84-89) (run 1, run 2)"
    assert ev["fired on"] == "run 1, run 2, run 3 (3 of 3 runs)"
    assert f["runs"] == 3 and f["of_runs"] == 3


def test_wording_that_differs_between_runs_is_listed_per_run_and_one_run_says_so() -> None:
    assert merge_text(["listen backlog full", "accept queue overflow 12"], ranges=True) is None
    f = merge_findings([("run 1", _finding("t", ("log", "dmesg", "nf_conntrack: table full"))),
                        ("run 3", _finding("t", ("log", "dmesg", "TCP: out of memory")))], of_runs=3)
    ev = {e["label"]: e["value"] for e in f["evidence"]}
    assert ev["dmesg"] == "run 1: nf_conntrack: table full; run 3: TCP: out of memory"
    assert ev["fired on"] == "run 1, run 3 (2 of 3 runs)"
    single = merge_findings([("run 2", _finding("t", ("series", "sy", "mean 85.4%")))], of_runs=3)
    assert single["evidence"][-1]["value"] == "run 2 (1 of 3 runs)"


def test_the_capture_comparison_reports_every_run_a_finding_fired_on(
    client: TestClient, investigation: Investigation
) -> None:
    r = client.get(f"/api/projects/{investigation.slug}/compare",
                   params={"baseline": "direct", "experiments": ["default"]})
    assert r.status_code == 200, r.text
    default = next(e for e in r.json()["findings"] if e["experiment"] == "default")
    copy = next(f for f in default["findings"] if f["rule"] == "copy-bound-proxy")
    assert copy["runs"] == 3 and copy["of_runs"] == 3
    fired = next(e for e in copy["evidence"] if e["label"] == "fired on")
    assert fired["value"] == "run 1, run 2, run 3 (3 of 3 runs)"
    # The runs differ, so at least one figure carries the range of the runs behind its median.
    assert any("(runs " in e["value"] for e in copy["evidence"])
