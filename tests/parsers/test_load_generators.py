"""k6, vegeta, hey and ab give wrk's load summary (issue 18 item 6): the figures each tool printed,
in wrk's units and keys, detected without being named."""

from __future__ import annotations

from pathlib import Path

import pytest
from perflab.parsers import LOAD_KINDS, ParseError, detect, parse
from perflab.parsers._load import go_duration_s

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WRK_KEYS = set(parse("wrk", (FIXTURES / "wrk" / "4.1.0_latency_nginx.txt").read_text()))


def _doc(rel: str) -> dict:
    text = (FIXTURES / rel).read_text(encoding="utf-8")
    doc = parse("auto", text)
    return doc


@pytest.mark.parametrize("rel", sorted(
    str(p.relative_to(FIXTURES)) for k in ("k6", "vegeta", "hey", "ab") for p in (FIXTURES / k).glob("*.txt")
    if "refused" not in p.name or k in ("vegeta", "hey")))
def test_every_capture_is_detected_and_has_wrks_keys(rel: str) -> None:
    doc = _doc(rel)
    assert doc["kind"] == rel.split("/")[0] == doc["tool"]
    assert WRK_KEYS <= set(doc)  # what validity, verdicts, trends and findings read
    assert doc["kind"] in LOAD_KINDS


def test_k6_summary_text_and_export_agree() -> None:
    text = _doc("k6/local_k6-1.1.0_summary.txt")
    export = _doc("k6/local_k6-1.1.0_summary_export.txt")
    assert text["requests"] == export["requests"] == 15503
    assert text["requests_per_sec"] == export["requests_per_sec"] == 3093.188738
    assert text["latency_percentiles_ms"] == {"50": 1.86, "90": 6.88, "95": 9.71}
    assert export["latency_percentiles_ms"] == {"50": 1.8698, "90": 6.8806, "95": 9.7192}
    assert text["latency_ms"]["avg"] == 3.03 and text["connections"] == 10
    assert text["bytes_read"] == 90_000_000 and text["duration_s"] == 5.0


def test_k6_failed_requests_and_thresholds() -> None:
    doc = _doc("k6/local_k6-1.1.0_summary_failed_threshold.txt")
    assert doc["non_2xx_3xx"] == 3062 and doc["requests"] == 12241
    assert doc["details"]["thresholds_failed"] == ["http_req_failed: rate<0.01"]
    assert doc["details"]["checks"] == {"passes": 9179, "fails": 3062}
    assert _doc("k6/local_k6-1.1.0_summary_export_failed.txt")["non_2xx_3xx"] == 3062
    legacy = _doc("k6/local_k6-1.1.0_legacy_summary.txt")
    assert legacy["details"]["format"] == "legacy summary" and legacy["latency_ms"]["max"] == 46.92


def test_hey_summary_and_failures() -> None:
    doc = _doc("hey/local_hey-0.1.4_z5s_c10.txt")
    assert doc["requests"] == 39029 and doc["requests_per_sec"] == 7803.654 and doc["duration_s"] == 5.0014
    assert doc["latency_percentiles_ms"]["99"] == 6.7 and doc["latency_ms"]["max"] == 24.9
    assert _doc("hey/local_hey-0.1.4_404.txt")["non_2xx_3xx"] == 2000
    refused = _doc("hey/local_hey-0.1.4_refused.txt")
    # hey printed 9314 Requests/sec for 200 refused connections: nothing was served
    assert refused["requests"] == 0 and refused["requests_per_sec"] == 0.0
    assert refused["socket_errors"]["connect"] == 200 and refused["latency_ms"]["max"] is None


def test_ab_report() -> None:
    doc = _doc("ab/local_ab-2.3_n5000_c10.txt")
    assert doc["url"] == "http://127.0.0.1:18555/page.html" and doc["connections"] == 10
    assert doc["requests"] == 5000 and doc["requests_per_sec"] == 4650.78 and doc["duration_s"] == 1.075
    assert doc["latency_ms"] == {"avg": 2.0, "stdev": 2.3, "max": 13.0, "within_stdev_pct": None}
    assert doc["latency_percentiles_ms"]["99"] == 9.0 and doc["latency_percentiles_ms"]["100"] == 13.0
    assert doc["transfer_per_sec_bytes"] == round(26210.61 * 1024, 2)
    assert _doc("ab/local_ab-2.3_k_404.txt")["non_2xx_3xx"] == 2000
    # responses of another length than the first (a dynamic page) are ab 'failures', not errors
    varying = _doc("ab/local_ab-2.3_length_failures.txt")
    assert varying["details"]["length_failures"] == 96 and varying["details"]["failed_requests"] == 96
    assert sum(varying["socket_errors"].values()) == 0 and "Length" in varying["warnings"][0]
    with pytest.raises(ParseError, match="Connection refused"):
        parse("ab", (FIXTURES / "ab/local_ab-2.3_refused.txt").read_text())


def test_vegeta_text_and_json_agree() -> None:
    text = _doc("vegeta/format_exact_v12_text_refused_502.txt")
    js = _doc("vegeta/format_exact_v12_json_refused_502.txt")
    for doc in (text, js):
        assert doc["requests"] == 3000 and doc["status_codes"] == {"0": 412, "200": 2561, "502": 27}
        assert doc["non_2xx_3xx"] == 27 and doc["socket_errors"]["connect"] == 412
        assert doc["latency_percentiles_ms"]["99"] == 13.688
    assert text["duration_s"] == js["duration_s"] == 10.010679204
    old = _doc("vegeta/format_exact_v6_text_report.txt")
    assert "90" not in old["latency_percentiles_ms"] and old["latency_percentiles_ms"]["95"] == 3.334


def test_go_durations() -> None:
    assert go_duration_s("2m55s") == 175.0
    assert go_duration_s("145.082066ms") == pytest.approx(0.145082066)
    assert go_duration_s("95.5µs") == pytest.approx(95.5e-6)
    assert go_duration_s("0s") == 0.0
    assert go_duration_s("1h") == 3600.0
    assert go_duration_s("12 ms") is None and go_duration_s("abc") is None


def test_split_keeps_a_k6_summary_whole() -> None:
    from perflab.parsers.split import split

    parts = split((FIXTURES / "k6/local_k6-1.1.0_summary.txt").read_text())
    assert [p["kind"] for p in parts] == ["k6"]
    assert detect((FIXTURES / "k6/local_k6-1.1.0_summary.txt").read_text()) == "k6"
