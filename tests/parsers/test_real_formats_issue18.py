"""The parser classes issue 18 found failing on real outputs, each on a capture of the tool's format:
what a user saw wrong (a later column taken as the command, UDP rows counted as TCP, a 61-byte
length read as 61 s, a duration one second off, a refused tsar module, ignored averages, unread
--human values) is asserted here in the user's terms."""

from __future__ import annotations

from pathlib import Path

from perflab.parsers import detect, parse

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _text(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def test_top_command_before_cpu_column_is_the_command_and_cpu_is_read() -> None:
    # fields chosen with 'f': PID PPID USER COMMAND %CPU %MEM S TIME+ NI
    doc = parse("top", _text("top/local_procps-4.0.2_b_fields_command_not_last.txt"))
    assert not doc["warnings"]
    busiest = doc["iterations"][1]["tasks_top"][0]
    assert busiest == {"pid": 13440, "user": "root", "command": "hey", "cpu_pct": 67.6, "mem_pct": 0.3, "state": "S"}
    assert "hey" in doc["commands"] and "0" not in doc["commands"]


def test_top_wide_command_lines_with_spaces_keep_their_columns() -> None:
    doc = parse("top", _text("top/local_procps-4.0.2_b_c_w180_fields.txt"))
    tasks = {t["pid"]: t for t in doc["iterations"][1]["tasks_top"]}
    assert tasks[12275]["command"] == "nginx: worker process"
    assert tasks[12275]["cpu_pct"] == 22.8 and tasks[12275]["state"] == "S"


def test_ss_tupna_udp_rows_are_not_tcp_states() -> None:
    text = _text("ss-tan/local_iproute2-6.1_tupna_udp.txt")
    doc = parse("ss-tan", text)
    assert detect(text) == "ss-tan"
    # three UDP sockets (one 'ESTAB', two 'UNCONN') are not TCP connections
    assert doc["states"] == {"LISTEN": 14, "TIME-WAIT": 25, "ESTAB": 6}
    assert doc["sockets"] == 45 and doc["other_sockets"] == {"udp": 3}
    assert all(lst["port"] not in (18560, 18561) for lst in doc["listeners"])


def test_ss_a_unix_and_netlink_sockets_are_not_tcp_states() -> None:
    doc = parse("ss-tan", _text("ss-tan/local_iproute2-6.1_a_unix_netlink.txt"))
    assert doc["states"] == {"LISTEN": 14, "TIME-WAIT": 25, "ESTAB": 6}
    assert doc["other_sockets"] == {"nl": 11, "u_dgr": 1, "u_str": 9, "udp": 3}
    assert "UNCONN" not in doc["states"]


def test_several_upstreams_are_added_in_every_log_shape() -> None:
    # The same 12 requests logged three ways by one nginx: key=value, bare numbers, and a log_format
    # where $upstream_addr/$upstream_response_time ("a, b", "a : b") precede a 61-byte length.
    docs = [parse("nginx-access", _text(f"nginx-access/local_nginx-1.22_several_upstreams_{k}.txt"))
            for k in ("kv", "bare", "log_format")]
    for doc in docs:
        assert doc["requests"] == 12 and doc["skipped"] == 0 and not doc["warnings"]
        urt = doc["latency_ms"]["upstream_response_time"]
        # 0.023 : 0.056 -> 79 ms, never 61 s (the body length) nor 18557 s (a port)
        assert urt["n"] == 12 and urt["max"] == 80.0 and urt["mean"] == 65.5
        assert doc["latency_ms"]["request_time"]["max"] == 79.0
    assert docs[0]["latency_ms"] == docs[1]["latency_ms"] | {
        "upstream_connect_time": docs[0]["latency_ms"]["upstream_connect_time"],
        "upstream_header_time": docs[0]["latency_ms"]["upstream_header_time"]}
    assert docs[2]["latency_ms"]["request_time"] == docs[0]["latency_ms"]["request_time"]


def test_access_log_duration_matches_the_contract_example() -> None:
    # the contract: first_time ...166, last_time ...176, duration_s 10.0, 1200 requests at 120/s
    lines = []
    for i in range(1200):
        second = 166 + i * 11 // 1200  # seconds 166..176, as a 10 s load starting mid-second logs them
        lines.append(f'10.0.0.1 - - [22/Nov/2026:00:{second // 60 % 60:02d}:{second % 60:02d} +0000] '
                     f'"GET / HTTP/1.1" 200 612 "-" "wrk" rt=0.005')
    doc = parse("nginx-access", "\n".join(lines) + "\n")
    assert doc["last_time"] - doc["first_time"] == 10.0
    assert doc["duration_s"] == 10.0 and doc["rate"]["mean"] == 120.0


def test_tsar_per_domain_nginx_module_is_read() -> None:
    text = _text("tsar/format_exact_nginx_domain_live.txt")
    assert detect(text) == "tsar"
    doc = parse("tsar", text)
    assert not doc["warnings"] and len(doc["samples"]) == 5
    third = doc["samples"][2]
    assert third["127.0.0.1:18555.5XX"] == 3.0 and third["127.0.0.1:18555.rt"] == 9.87
    assert third["127.0.0.1:18555.qps"] == 1.5 * 1024  # tsar's '1.5K'
    assert third["www.example.com:80.qps"] == 14.0


def test_pidstat_e_average_rows_without_their_own_header() -> None:
    doc = parse("pidstat", _text("pidstat/local_sysstat-12.6.1_u_e_average_without_header.txt"))
    assert not doc["warnings"]
    assert len(doc["samples"]) == 4
    [avg] = doc["averages"]
    assert avg["pid"] == 17654 and avg["command"] == "sh"
    assert avg["cpu_pct"] == 33.75 and avg["wait_pct"] == 65.76


def test_pidstat_human_values_are_read_in_the_columns_units() -> None:
    doc = parse("pidstat", _text("pidstat/local_sysstat-12.6.1_human_u_r_d.txt"))
    assert not doc["warnings"]
    assert len(doc["samples"]) == 30
    pg = next(a for a in doc["averages"] if a["pid"] == 2201)
    assert pg["vsz_kb"] == 212.3 * 1024  # '212.3M'
    assert pg["rss_kb"] == 28.5 * 1024
    assert pg["kb_wr_per_s"] == 82.0  # '82.0k' per second, in KiB
    assert pg["mem_pct"] == 0.1 and pg["usr_pct"] == 0.0
    assert doc["units"]["vsz_kb"] == "KiB"
