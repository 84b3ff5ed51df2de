"""What users notice: exact units, honest partial results, clear errors, localized input."""

from __future__ import annotations

import pytest
from perflab.parsers import KINDS, ParseError, detect, parse

from .corpus import FIXTURES

WRK_DEFAULT = (FIXTURES / "wrk" / "nginx-proxy-buffers_default_run1.txt").read_text()


def test_wrk_units_are_converted_exactly() -> None:
    text = """Running 1m test @ http://h/
  2 threads and 10 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   390.70us    0.98ms   1.04s    91.08%
    Req/Sec    30.07k     1.2M    42.95k    64.00%
  Latency Distribution
     50%   77.00us
     99%    1.00m
  299459 requests in 1.00m, 6.60GB read
Requests/sec:  59804.20
Transfer/sec:    835.66KB
"""
    r = parse("wrk", text)
    assert r["latency_ms"] == {
        "avg": 0.3907,
        "stdev": 0.98,
        "max": 1040.0,
        "within_stdev_pct": 91.08,
    }
    assert (
        r["req_per_sec_per_thread"]["avg"] == 30070.0
        and r["req_per_sec_per_thread"]["stdev"] == 1200000.0
    )
    assert r["latency_percentiles_ms"] == {"50": 0.077, "99": 60000.0}
    assert r["duration_s"] == 60.0 and r["test_duration_s"] == 60.0
    assert r["bytes_read"] == 7086696038  # 6.60 * 1024**3, rounded to a whole byte
    assert r["transfer_per_sec_bytes"] == 855715.84
    assert r["non_2xx_3xx"] == 0 and r["socket_errors"] == {
        "connect": 0,
        "read": 0,
        "write": 0,
        "timeout": 0,
    }


def test_wrk_truncated_paste_gives_nulls_with_warnings_never_numbers() -> None:
    lines = WRK_DEFAULT.splitlines()
    r = parse("wrk", "\n".join(lines[:5] + ["..."] + lines[11:12]))
    assert r["requests_per_sec"] == 5627.0
    assert (
        r["requests"] is None
        and r["duration_s"] is None
        and r["transfer_per_sec_bytes"] is None
    )
    assert r["latency_percentiles_ms"] is None
    assert any("requests" in w for w in r["warnings"]) and any(
        "Transfer/sec" in w for w in r["warnings"]
    )


def test_wrk_without_responses_reports_no_latency() -> None:
    r = parse("wrk", (FIXTURES / "wrk" / "4.1.0_zero_responses.txt").read_text())
    assert (
        r["requests"] == 0
        and r["latency_ms"] is None
        and r["latency_percentiles_ms"] is None
    )
    assert r["req_per_sec_per_thread"]["within_stdev_pct"] is None  # '-nan%'


def test_wrk2_percentiles_are_all_kept() -> None:
    r = parse("wrk", (FIXTURES / "wrk2" / "format_exact.txt").read_text())
    assert r["tool"] == "wrk2"
    assert list(r["latency_percentiles_ms"]) == [
        "50",
        "75",
        "90",
        "99",
        "99.9",
        "99.99",
        "99.999",
        "100",
    ]
    assert r["percentile_spectrum"][-1] == {
        "latency_ms": 12.503,
        "percentile": 1.0,
        "total_count": 39500,
    }


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "wrk"])
def test_wrk_output_fed_as_another_kind_is_a_clear_error(kind: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(kind, WRK_DEFAULT)
    assert err.value.line is not None and err.value.line >= 1
    assert str(err.value).startswith(f"line {err.value.line}: ")


@pytest.mark.parametrize("kind", KINDS)
def test_empty_and_binary_input(kind: str) -> None:
    with pytest.raises(ParseError, match="empty"):
        parse(kind, "")
    with pytest.raises(ParseError, match="binary"):
        parse(kind, "\x00\x01\x02garbage\x00" * 10)


def test_vmstat_translated_headers_map_to_the_english_columns() -> None:
    ko = """procs -----------메모리---------- ---스왑-- ---입출력-- -시스템-- ------CPU-----
 r  b   스왑   가용   버퍼   캐시   입   출    입    출   in   cs us sy id wa st
 1  0      0 100 200 300    5    6    7    8   9   10  1  2 97  0  0
"""
    s = parse("vmstat", ko)["samples"][0]
    assert (s["swpd"], s["free"], s["buff"], s["cache"]) == (0, 100, 200, 300)
    assert (s["si"], s["so"], s["bi"], s["bo"]) == (5, 6, 7, 8)
    sv = """procs -----------minne----------- -växling- -----io---- -system-- ------cpu-----
 k  b   växl   fritt   buff  cache   vi   vu    bi    bu  avb ktxb an sy ia vä st
 3  0      0 100 200 300    0    0    0    0   9   10  1  2 97  0  0
"""
    s = parse("vmstat", sv)["samples"][0]
    assert (s["r"], s["in"], s["cs"], s["us"], s["id"]) == (3, 9, 10, 1, 97)


def test_vmstat_time_zones() -> None:
    head = "procs ---memory--- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----\n"
    cols = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st {}\n"
    row = " 1  0      0 100 200 300    0    0    0    0   9   10  1  2 97  0  0 2026-11-22 02:03:53\n"
    utc = parse("vmstat", head + cols.format("UTC") + row)
    assert (
        utc["samples"][0]["timestamp"] == "2026-11-22T02:03:53+00:00"
        and utc["warnings"] == []
    )
    ist = parse("vmstat", head + cols.format("+0530") + row)
    assert ist["samples"][0]["timestamp"] == "2026-11-22T02:03:53+05:30"
    cst = parse("vmstat", head + cols.format("CST") + row)  # China, US Central or Cuba?
    assert (
        cst["samples"][0]["timestamp"] == "2026-11-22T02:03:53"
        and cst["samples"][0]["tz"] == "CST"
    )
    assert len(cst["warnings"]) == 1 and "CST" in cst["warnings"][0]


def test_vmstat_memory_unit_from_the_pasted_command_or_option() -> None:
    text = (FIXTURES / "vmstat" / "procps-ng-4.0.2_SM.txt").read_text()
    assert parse("vmstat", text)["units"]["free"] == "KiB"  # the text alone cannot tell
    assert parse("vmstat", text, memory_unit="M")["units"]["free"] == "MiB"
    pasted = parse("vmstat", "$ vmstat -SM 1 2\n" + text)
    assert (
        pasted["units"]["free"] == "MiB"
        and pasted["memory_unit_source"] == "command line"
    )
    assert parse("vmstat", "# vmstat -S k 5\n" + text)["units"]["si"] == "kB/s"
    with pytest.raises(ValueError):
        parse("vmstat", text, memory_unit="G")


def test_vmstat_only_the_first_row_is_since_boot() -> None:
    r = parse(
        "vmstat",
        (FIXTURES / "vmstat" / "procps-ng-4.0.2_header-repeat.txt").read_text(),
    )
    assert [s["since_boot"] for s in r["samples"]].count(True) == 1 and r["samples"][0][
        "since_boot"
    ]
    assert len(r["samples"]) == 26


def test_pidstat_rolls_the_date_over_at_midnight() -> None:
    text = """Linux 6.1.0 (h) \t11/22/26 \t_x86_64_\t(2 CPU)

23:59:58      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
23:59:59        0       794    3.00   27.00    0.00   26.00   30.00     1  nginx

23:59:59      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
00:00:00        0       794    3.00   27.00    0.00   26.00   30.00     1  nginx
"""
    stamps = [s["timestamp"] for s in parse("pidstat", text)["samples"]]
    assert stamps == ["2026-11-22T23:59:59", "2026-11-23T00:00:00"]


def test_pidstat_localized_averages_and_decimal_commas() -> None:
    text = """Linux 6.1.0 (h) \t22/11/2026 \t_x86_64_\t(2 CPU)

14:00:00      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
14:00:01        0       794    3,50   27,25    0,00   26,00   30,75     1  nginx

Moyenne\u202f:   UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command
Moyenne\u202f:     0       794    3,50   27,25    0,00   26,00   30,75     -  nginx
"""
    r = parse("pidstat", text)
    assert r["system"]["date"] == "2026-11-22"
    assert (
        r["samples"][0]["usr_pct"] == 3.5
        and r["samples"][0]["timestamp"] == "2026-11-22T14:00:01"
    )
    assert r["averages"][0]["cpu_pct"] == 30.75 and r["averages"][0]["cpu"] is None


def test_pidstat_odd_cells_are_refused_or_blank_not_misread() -> None:
    # A placeholder is None; a number too big for a double or a float in an integer column skips the
    # row with a warning instead of storing inf or a truncated integer.
    head = "14:00:00      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command\n"
    rows = [
        "14:00:01        0       794    3.50   27.25    0.00   26.00   30.75     -  nginx",
        "14:00:02        0       794    " + "9" * 320 + "   27.25    0.00   26.00   30.75     1  nginx",
        "14:00:03        0       7.5    3.50   27.25    0.00   26.00   30.75     1  nginx",
        "14:00:04        0       794    -3.50   27.25    0.00   26.00   30.75     1  nginx",
    ]
    r = parse("pidstat", "Linux 6.1.0 (h) \t11/22/26 \t_x86_64_\t(2 CPU)\n\n" + head + "\n".join(rows) + "\n")
    assert [(s["time"], s["cpu"], s["usr_pct"]) for s in r["samples"]] == [
        ("14:00:01", None, 3.5), ("14:00:04", 1, -3.5)]
    assert len(r["warnings"]) == 2 and all("not a number" in w for w in r["warnings"])


def test_pidstat_threads_belong_to_their_process() -> None:
    r = parse(
        "pidstat", (FIXTURES / "pidstat" / "sysstat-12.6.1_t_u_w_G.txt").read_text()
    )
    threads = [(s["pid"], s["tid"], s["command"]) for s in r["samples"][:3]]
    assert threads == [
        (7505, None, "nginx"),
        (7505, 7505, "nginx"),
        (7505, 7516, "nginx"),
    ]


def test_pidstat_command_lines_keep_their_spaces() -> None:
    r = parse("pidstat", (FIXTURES / "pidstat" / "realhost_07.txt").read_text())
    assert (
        r["samples"][0]["command"]
        == "/usr/lib/systemd/systemd --switched-root --system --deserialize 22"
    )
    assert (
        r["samples"][0]["timestamp"] == "2022-03-09T20:52:14+00:00"
    )  # old -h prints epoch seconds


def test_netqtop_suffixes_are_expanded_like_netqtop_computes_them() -> None:
    r = parse("netqtop", (FIXTURES / "netqtop" / "current_format.txt").read_text())
    q0 = r["intervals"][0]["tx"]["queues"][0]
    assert q0["avg_size_bytes"] == 1228.8  # 1.2K = 1.2 * 1024
    assert q0["buckets"]["64-512"] == 1198.08
    assert q0["bps"] == 1520435.2  # 1.45M = 1.45 * 1024 * 1024
    assert (
        r["intervals"][1]["tx"]["queues"][0]["bps"] is None
    )  # second interval printed without -t


def test_strace_log_takes_the_last_equals_sign_and_counts_resumed_calls_once() -> None:
    r = parse(
        "strace",
        (FIXTURES / "strace" / "local_6.1_f_tt_T_threads_unfinished.txt").read_text(),
    )
    readv = r["syscalls"]["readv"]
    # 6 readv calls were split over <unfinished ...> / <... resumed> lines, one was not
    assert readv["calls"] == 7 and readv["unfinished"] == 0
    assert readv["returns"] == {
        "0": 1,
        "6": 1,
        "106": 1,
        "206": 1,
        "306": 1,
        "406": 1,
        "506": 1,
    }
    # the traced data contains "x = 0"; grep|awk -F' = ' would take that as the return value
    assert r["syscalls"]["writev"]["errors"] == {"EBADF": 1}
    assert "-1 EBADF (Bad file descriptor)" in r["syscalls"]["writev"]["returns"]


def test_strace_log_warns_about_calls_that_never_returned() -> None:
    r = parse(
        "strace", "[pid 1] readv(3,  <unfinished ...>\n[pid 2] writev(4, [], 0) = 0\n"
    )
    assert (
        r["syscalls"]["readv"]["unfinished"] == 1
        and r["syscalls"]["readv"]["calls"] == 0
    )
    assert any("unfinished" in w for w in r["warnings"])


def test_strace_c_table_with_collapsed_spaces_keeps_blank_errors_in_place() -> None:
    text = """% time seconds usecs/call calls errors syscall
------ ----------- ----------- --------- --------- ----------------
70.35 0.848793 17 49123 writev
22.03 0.265774 8 31776 12 readv
------ ----------- ----------- --------- --------- ----------------
100.00 1.114567 13 80899 12 total
"""
    r = parse("strace-c", text)
    assert r["syscalls"][0] == {
        "syscall": "writev",
        "calls": 49123,
        "errors": 0,
        "seconds": 0.848793,
        "usecs_per_call": 17,
        "pct_time": 70.35,
    }
    assert r["syscalls"][1]["errors"] == 12 and r["total"]["calls"] == 80899


def test_strace_c_refused_attach_is_an_error() -> None:
    with pytest.raises(ParseError, match="Operation not permitted"):
        parse("strace-c", (FIXTURES / "strace-c" / "6.1_eperm.txt").read_text())


def test_sysctl_forms() -> None:
    r = parse(
        "sysctl",
        "# tuned\nnet/ipv4/tcp_tw_reuse=1\n-net.core.somaxconn = 65535\n"
        "sysctl: permission denied on key 'fs.protected_regular'\n"
        "net.ipv4.ip_local_port_range = 1024\t65000\n",
    )
    assert r["values"] == {
        "net.ipv4.tcp_tw_reuse": "1",
        "net.core.somaxconn": "65535",
        "net.ipv4.ip_local_port_range": "1024 65000",
    }
    assert r["numbers"]["net.ipv4.ip_local_port_range"] == [1024, 65000]
    assert len(r["warnings"]) == 1 and "permission denied" in r["warnings"][0]


def test_perf_stat_thousands_separators() -> None:
    text = """ Performance counter stats for './a.out':

          1,234.50 msec task-clock                #    0.998 CPUs utilized
        12,345,678      cycles                    #    3.1 GHz                      ( +-  1.23% )

       1.236000000 seconds time elapsed
"""
    r = parse("perf-stat", text)
    assert (
        r["counters"][0]["value"] == 1234.5 and r["counters"][1]["value"] == 12345678.0
    )
    assert r["counters"][1]["variance_pct"] == 1.23 and r["elapsed_s"] == 1.236


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world\nthis is a note about nginx tuning\n",
        "a = b\n",
        "1 2 3\n4 5 6\n",
        "{}\n",
        "Total: lots\n",
    ],
)
def test_detect_says_none_for_non_tool_text(text: str) -> None:
    assert detect(text) is None


def test_auto_on_unknown_text_names_the_kinds() -> None:
    with pytest.raises(ParseError) as err:
        parse("auto", "\n\nsome notes from the meeting\n")
    assert err.value.line == 3 and "vmstat" in err.value.message


def test_chartable_metrics_have_units() -> None:
    from perflab.parsers import module, pidstat, vmstat

    for kind in KINDS:
        if kind == "sysctl":  # settings, not measurements
            continue
        metrics = module(kind).METRICS
        assert metrics and all(
            isinstance(k, str) and isinstance(u, str) and u for k, u in metrics.items()
        )
    assert (
        vmstat.METRICS["cs"] == "/s"
        and vmstat.METRICS["us"] == "%"
        and vmstat.METRICS["free"] == "KiB"
    )
    assert set(pidstat.PER_PROCESS_METRICS) == set(pidstat.METRICS)
    assert {"usr_pct", "system_pct", "cswch_per_s", "nvcswch_per_s", "rss_kb"} <= set(
        pidstat.METRICS
    )
    # every per-process metric is a column pidstat can print
    assert set(pidstat.METRICS) - {key for key, _ in pidstat.COLUMNS.values()} == set()


def test_strace_log_with_a_pathological_line_stays_fast() -> None:
    import time

    text = "readv(3, [], 1) = 0\n" + "x(" * 100_000 + "\n" + "writev(4, [], 1) = 7\n"
    t0 = time.perf_counter()
    r = parse("strace", text)
    assert time.perf_counter() - t0 < 5
    assert r["syscalls"]["writev"]["returns"] == {"7": 1} and r["unparsed_lines"] == 1


@pytest.mark.parametrize("text", ["...\n", "log_format t '$remote_addr $status';\n\n...\n"])
def test_an_access_log_paste_with_nothing_but_elisions_is_refused_not_a_crash(text: str) -> None:
    # Found by the damaged-fixture property test: an AssertionError (a 500 on import) instead of a refusal.
    with pytest.raises(ParseError, match="no access log lines"):
        parse("nginx-access", text)
