"""Real outputs from other locales, versions and flags (tests/fixtures/INDEX.md says where each
comes from): the figures must be the ones the tool printed, or a refusal naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from perflab.parsers import ParseError, parse
from perflab.parsers.cli import main

from .corpus import FIXTURES


def _text(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def _counters(result: dict) -> dict[str, dict]:
    return {c["event"]: c for c in result["counters"]}


# --- locales -------------------------------------------------------------------------------


def test_perf_stat_de_DE_decimal_commas_and_dot_thousands() -> None:
    r = parse("perf-stat", _text("perf-stat/local_6.1_de_DE_r3.txt"))
    c = _counters(r)
    assert r["decimal_mark"] == ","
    assert c["task-clock"]["value"] == 218.07 and c["task-clock"]["variance_pct"] == 1.47
    assert c["page-faults"]["value"] == 9634  # '9.634' is nine thousand, not nine
    assert c["page-faults"]["metric_value"] == 42.957 and c["page-faults"]["metric_unit"] == "K/sec"
    assert c["context-switches"]["metric_value"] == 798.138


@pytest.mark.parametrize("locale", ["ru_RU", "fr_FR"])
def test_perf_stat_narrow_space_thousands(locale: str) -> None:
    r = parse("perf-stat", _text(f"perf-stat/local_6.1_{locale}.txt"))
    c = _counters(r)
    assert len(r["counters"]) == 3
    assert c["page-faults"]["value"] in (9588, 9619)  # '9\u202f588', not 9 then 588
    assert 0.6 < r["elapsed_s"] < 1 and r["user_s"] is not None


def test_perf_stat_en_US_comma_thousands() -> None:
    c = _counters(parse("perf-stat", _text("perf-stat/local_6.1_en_US.txt")))
    assert c["page-faults"]["value"] == 9513 and c["task-clock"]["value"] == 225.07


def test_perf_stat_refuses_a_number_it_cannot_read_for_sure() -> None:
    # '1,43' is neither a grouped thousand nor, in a '.'-decimal output, a decimal
    text = (
        " Performance counter stats for 'x':\n\n"
        "              1,43      context-switches\n\n"
        "       0.533609108 seconds time elapsed\n"
    )
    with pytest.raises(ParseError) as e:
        parse("perf-stat", text)
    assert e.value.line == 3 and "'1,43'" in e.value.message


def test_strace_c_de_DE_decimal_commas() -> None:
    r = parse("strace-c", _text("strace-c/local_6.1_de_DE.txt"))
    assert r["syscalls"][0] == {
        "syscall": "newfstatat", "calls": 103, "errors": 18, "seconds": 0.00067,
        "usecs_per_call": 6, "pct_time": 31.66,
    }
    assert r["total"] == {
        "calls": 377, "errors": 38, "seconds": 0.002116, "usecs_per_call": 5, "pct_time": 100.0
    }
    assert sum(s["calls"] for s in r["syscalls"]) == 377 and r["warnings"] == []


def test_strace_c_de_DE_custom_columns() -> None:
    r = parse("strace-c", _text("strace-c/local_6.1_w_U_de_DE.txt"))
    first = r["syscalls"][0]
    assert first["syscall"] == "newfstatat" and first["pct_time"] == 23.67
    assert first["min_seconds"] == 0.000007 and first["max_seconds"] == 0.000022


def test_strace_c_table_of_unreadable_rows_is_refused_not_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _text("strace-c/local_6.1_de_DE.txt").replace("0,0", "0;0")
    f = tmp_path / "s.txt"
    f.write_text(text)
    assert main(["strace-c", str(f)]) == 2
    assert "line 3: unreadable row" in capsys.readouterr().err


# --- perf stat flags -----------------------------------------------------------------------


def test_perf_stat_repeats_keep_mean_stdev_and_variance() -> None:
    r = parse("perf-stat", _text("perf-stat/local_6.1_de_DE_r3.txt"))
    assert r["elapsed_s"] == 1.1459 and r["elapsed_stdev_s"] == 0.064
    assert r["elapsed_variance_pct"] == 5.59


def test_perf_stat_percent_metric_is_kept() -> None:
    text = (
        " Performance counter stats for './a.out':\n\n"
        "         1,234,567      branches                         #  123.456 M/sec\n"
        "            71,481      branch-misses                    #    5.79% of all branches\n"
        "     <not counted>      cycles                                                        (0.00%)\n\n"
        "       0.002956893 seconds time elapsed\n"
    )
    c = _counters(parse("perf-stat", text))
    assert c["branch-misses"]["value"] == 71481
    assert c["branch-misses"]["metric_value"] == 5.79
    assert c["branch-misses"]["metric_unit"] == "% of all branches"
    assert c["branches"]["value"] == 1234567 and c["branches"]["metric_unit"] == "M/sec"
    assert c["cycles"]["counted"] is False and c["cycles"]["value"] is None


@pytest.mark.parametrize(
    "rel", ["perf-stat/local_6.1_x_csv_r3.txt", "perf-stat/local_6.1_json_r3.txt"]
)
def test_perf_stat_csv_and_json_with_repeats(rel: str) -> None:
    c = _counters(parse("perf-stat", _text(rel)))
    assert set(c) == {"task-clock", "context-switches", "cycles"}
    assert c["cycles"]["supported"] is False and c["cycles"]["value"] is None
    assert c["context-switches"]["variance_pct"] in (5.28, 4.41)


def test_perf_stat_per_cpu_and_intervals_keep_every_counter() -> None:
    per_cpu = parse("perf-stat", _text("perf-stat/local_6.1_a_A_per_cpu.txt"))
    assert [(c["event"], c["cpu"], c["value"]) for c in per_cpu["counters"]] == [
        ("task-clock", "0", 102.69), ("task-clock", "1", 104.34),
        ("context-switches", "0", 81), ("context-switches", "1", 162),
    ]
    intervals = parse("perf-stat", _text("perf-stat/local_6.1_I_interval.txt"))
    assert len(intervals["counters"]) == 6
    assert [c["time_s"] for c in intervals["counters"][::2]] == [0.100146187, 0.200371091, 0.253220814]
    assert intervals["counters"][2]["counted"] is False


@pytest.mark.parametrize(
    ("rel", "words"),
    [
        ("perf-stat/local_6.1_x_csv_de_DE.txt", "decimal commas"),
        ("perf-stat/local_6.1_json_de_DE.txt", "LC_ALL=C"),
    ],
)
def test_perf_stat_machine_formats_in_a_comma_locale_are_refused(rel: str, words: str) -> None:
    with pytest.raises(ParseError) as e:
        parse("perf-stat", _text(rel))
    assert e.value.line == 1 and words in e.value.message


# --- wrk2 ----------------------------------------------------------------------------------


def test_wrk2_uncorrected_latency_is_a_separate_result() -> None:
    r = parse("wrk", _text("wrk2/format_exact_u_latency.txt"))
    assert len(r["percentile_spectrum"]) == 10 and len(r["uncorrected_percentile_spectrum"]) == 9
    assert r["hdr_summary"]["mean_ms"] == 6.602 and r["hdr_summary"]["max_ms"] == 12.496
    assert r["uncorrected_hdr_summary"]["mean_ms"] == 2.791
    assert r["latency_percentiles_ms"]["99"] == 11.18
    assert r["uncorrected_latency_percentiles_ms"]["99"] == 5.43
    assert r["percentile_spectrum"][-1]["latency_ms"] == 12.503


def test_wrk2_old_calibration_line_and_nan_figures() -> None:
    r = parse("wrk", _text("wrk2/format_exact_old_calibration_nan.txt"))
    assert r["calibration"][0] == {"mean_latency_ms": 9.747, "sampling_interval_ms": 21.0}
    # only the -nan figures are missing; max and the rest of the result stay
    assert r["req_per_sec_per_thread"] == {
        "avg": None, "stdev": None, "max": 2500.0, "within_stdev_pct": 0.0
    }
    assert r["requests_per_sec"] == 2000.28 and r["warnings"] == []


# --- netstat -s ----------------------------------------------------------------------------


def test_netstat_s_centos7_wording_maps_to_kernel_counters() -> None:
    c = parse("netstat-s", _text("netstat-s/format_exact_net-tools-2.0_centos7.txt"))["counters"]
    assert c["Tcp.ActiveOpens"] == 30417 and c["Tcp.OutSegs"] == 4861934
    assert c["Tcp.RetransSegs"] == 3307 and c["Tcp.InErrs"] == 2 and c["Udp.NoPorts"] == 49


def test_netstat_s_grep_paste_without_section_headers() -> None:
    r = parse("auto", _text("netstat-s/format_exact_grep_listen.txt"))
    assert r["kind"] == "netstat-s"
    assert r["counters"] == {"TcpExt.ListenOverflows": 1402, "TcpExt.ListenDrops": 1402}
    assert any("grep" in w for w in r["warnings"])


@pytest.mark.parametrize("kind", ["netstat-s", "wrk", "strace", "sysctl", "vmstat", "pidstat"])
def test_a_4300_digit_number_is_refused_or_ignored_never_a_crash(kind: str) -> None:
    big = "9" * 4400
    texts = [
        f"Tcp:\n    {big} active connection openings\n    5 resets sent\n",
        f"Running 1s test @ http://x\n  {big} threads and 1 connections\n",
        f"read(3, \"\", 1) = {big}\nread(3, \"\", 1) = 1\n",
        f"net.core.somaxconn = {big}\nnet.core.x = 1\n",
    ]
    for text in texts:
        try:
            result = parse(kind, text)
        except ParseError:
            continue
        assert big not in str(result.get("counters", {}))
    r = parse("netstat-s", texts[0])
    assert r["counters"] == {"Tcp.OutRsts": 5}
    assert any("40 digits" in w for w in r["warnings"])


# --- sysctl --------------------------------------------------------------------------------


def test_sysctl_value_of_several_lines_is_joined() -> None:
    r = parse("sysctl", _text("sysctl/jc_centos-7.7_a.txt"))
    info = r["values"]["dev.cdrom.info"].split("\n")
    assert info[0] == "CD-ROM information, Id: cdrom.c 3.20 2003/12/17"
    assert "drive name: sr0" in info and info[-1] == "Can write RAM: 1"
    assert "dev.cdrom.info" not in r["numbers"]
    assert not any("set again" in w for w in r["warnings"])


@pytest.mark.parametrize(
    ("rel", "name", "number"),
    [
        ("sysctl/jc_freebsd12_a.txt", "kern.maxfiles", 64303),
        ("sysctl/jc_osx-10.14.6_a.txt", "kern.maxproc", 2128),
    ],
)
def test_sysctl_bsd_and_macos_name_colon_value(rel: str, name: str, number: int) -> None:
    r = parse("auto", _text(rel))
    assert r["kind"] == "sysctl" and r["numbers"][name] == number and r["warnings"] == []


# --- tables that are not what a kind expects ------------------------------------------------

REFUSED = {
    "jc_centos-7.7_vmstat-d.txt": "vmstat -d",
    "jc_centos-7.7_vmstat-dt.txt": "vmstat -d",
    "local_procps-4.0.2_vmstat-s.txt": "vmstat -s",
    "local_procps-4.0.2_vmstat-D.txt": "vmstat -D",
    "local_procps-4.0.2_vmstat-m_head.txt": "vmstat -m",
}


@pytest.mark.parametrize(("name", "looks_like"), REFUSED.items())
@pytest.mark.parametrize("kind", ["vmstat", "auto"])
def test_other_tables_are_refused_naming_what_they_look_like(
    name: str, looks_like: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([kind, str(FIXTURES / "refused" / name)]) == 2
    err = capsys.readouterr().err
    assert f"this looks like {looks_like}" in err and "line " in err


def test_another_kind_given_by_name_is_refused_naming_the_right_kind() -> None:
    with pytest.raises(ParseError) as e:
        parse("vmstat", _text("pidstat/realhost_07.txt"))
    assert "looks like pidstat output: parse it as pidstat" in e.value.message


def test_perf_stat_csv_intervals_and_per_cpu_keep_every_row() -> None:
    intervals = parse("auto", _text("perf-stat/local_6.1_x_csv_I_interval.txt"))
    assert intervals["kind"] == "perf-stat" and intervals["format"] == "csv"
    assert [c["time_s"] for c in intervals["counters"]][::2] == [0.100159903, 0.200410566, 0.25459395]
    assert intervals["counters"][2]["counted"] is False
    per_cpu = parse("auto", _text("perf-stat/local_6.1_x_csv_a_A_per_cpu.txt"))
    assert [(c["cpu"], c["value"]) for c in per_cpu["counters"]] == [
        ("0", 115.91), ("1", 117.85), ("0", 117), ("1", 385),
    ]


def test_perf_stat_3_10_layout_keeps_every_counter() -> None:
    r = parse("perf-stat", _text("perf-stat/format_exact_3.10_centos7.txt"))
    c = _counters(r)
    assert len(r["counters"]) == 10 and r["warnings"] == []
    assert c["task-clock"]["value"] == 1002.417857 and c["task-clock"]["unit"] == "msec"
    assert c["cycles"]["pct_running"] == 83.33 and c["cycles"]["metric_unit"] == "GHz"
    assert c["branch-misses"]["metric_unit"] == "% of all branches"
    assert c["stalled-cycles-backend"]["supported"] is False
