"""The noise of a setup: from an experiment's repeated runs, what n runs a side detect, per metric and role."""

from __future__ import annotations

from fastapi.testclient import TestClient
from perflab import stats

from tests.compare.investigation import Investigation
from tests.compare.test_stats import DIRECT


def test_an_experiments_runs_say_what_changes_this_setup_detects(client: TestClient, investigation: Investigation
                                                                   ) -> None:
    r = client.get(f"/api/projects/{investigation.slug}/noise", params={"experiment": "direct"})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["experiment"] == "direct" and doc["runs"] == 3
    rps = next(row for row in doc["rows"] if row["key"] == "wrk.requests_per_sec")
    assert rps["n"] == 3 and rps["section"] == "results"
    expected = stats.noise_floor(DIRECT)
    assert expected is not None and rps["detectable_pct"] == round(expected * 100, 1)
    # More runs detect smaller changes; 10 runs a side see less than 3 do.
    by = {int(k): v for k, v in rps["detectable_by_runs"].items()}
    assert by[3] == rps["detectable_pct"] and by[10] < by[5] < by[3]
    # Host telemetry per role: the proxy's system CPU is measured on the proxy host.
    roles = {row["role"] for row in doc["rows"] if row["section"] == "telemetry"}
    assert "proxy" in roles
    # The compare page carries the baseline's noise too.
    cmp = client.get(f"/api/projects/{investigation.slug}/compare",
                     params={"baseline": "direct", "experiments": ["default"]}).json()
    assert cmp["noise"]["experiment"] == "direct"
    assert next(row for row in cmp["noise"]["rows"] if row["key"] == "wrk.requests_per_sec") == rps
    missing = client.get(f"/api/projects/{investigation.slug}/noise", params={"experiment": "nope"})
    assert missing.status_code == 404 and "nope" in missing.text


def test_the_markdown_export_says_what_the_noise_panel_says(client: TestClient, investigation: Investigation
                                                            ) -> None:
    """A pull-request comment carries the baseline's noise: what 3, 5 and 10 runs a side detect, the figures
    the compare page's noise panel shows."""
    params = {"baseline": "direct", "experiments": ["default"]}
    url = f"/api/projects/{investigation.slug}/compare"
    noise = client.get(url, params=params).json()["noise"]
    md = client.get(f"{url}/markdown", params=params).text
    assert "Noise of this setup (direct, 3 runs): the smallest change each run count a side detects" in md
    rps = next(row for row in noise["rows"] if row["key"] == "wrk.requests_per_sec")
    by = rps["detectable_by_runs"]
    line = next(line for line in md.splitlines() if line.startswith("- Requests/sec: "))
    assert line == (f"- Requests/sec: ±{rps['spread_pct']:.1f}% run to run; 3 runs: {by['3']:.1f}%, "
                    f"5 runs: {by['5']:.1f}%, 10 runs: {by['10']:.1f}%")
    # One line per result metric (latency too); host telemetry stays on the page (it is per role and long).
    block = md.split("Noise of this setup")[1].split("\n\n")[0].splitlines()[1:]
    results = [row for row in noise["rows"] if row["section"] == "results" and row["detectable_pct"] is not None]
    assert [line.split(":")[0] for line in block] == [f"- {row['label']}" for row in results]
    assert "- p99 latency" in [line.split(":")[0] for line in block]
    assert len(results) < len(noise["rows"])  # the telemetry rows the export leaves out exist


def test_the_agent_prints_what_this_setup_detects(client: TestClient, investigation: Investigation) -> None:
    import sys

    from tests.agent.helpers import AGENTS

    sys.path.insert(0, str(AGENTS))
    from perflab_agent.noise import render

    doc = client.get(f"/api/projects/{investigation.slug}/noise", params={"experiment": "direct"}).json()
    rps = next(row for row in doc["rows"] if row["key"] == "wrk.requests_per_sec")
    text = render(doc)
    assert text.startswith(f"direct: 3 runs. This setup detects Requests/sec changes of {rps['detectable_pct']:.1f}% "
                           "or more with 3 runs a side.")
    line = next(ln for ln in text.splitlines() if ln.startswith("wrk.requests_per_sec"))
    assert line.split()[-3:] == [f"{rps['detectable_by_runs'][str(n)]:.1f}%" for n in (3, 5, 10)]
    assert any(ln.split()[1] == "proxy" for ln in text.splitlines() if ln.startswith("vmstat."))
