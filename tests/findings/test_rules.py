"""Each rule on real outputs: it names the knob the investigation's author turned, with evidence, and stays
silent where nothing is wrong (the proxy_buffers `direct` run above all)."""

from __future__ import annotations

import pytest
from perflab.findings.rules import RULES, evaluate

from .helpers import FIXTURES, SCENARIOS, capture, run_data

RUNS = ("run1", "run2", "run3")


def rules_of(findings: list[dict]) -> set[str]:
    return {f["rule"] for f in findings}


@pytest.mark.parametrize("run", RUNS)
def test_healthy_direct_run_gets_no_warning(run: str) -> None:
    findings = evaluate(capture("direct", run))
    assert [f for f in findings if f["severity"] != "info"] == []


@pytest.mark.parametrize("run", RUNS)
def test_default_proxy_buffers_is_copy_bound_and_names_proxy_buffers(run: str) -> None:
    findings = [f for f in evaluate(capture("default", run)) if f["rule"] == "copy-bound-proxy"]
    assert len(findings) == 1
    f = findings[0]
    assert f["suggestion"] == {"component": "nginx", "knob": "proxy_buffers", "from": "8 4k (default)", "to": "4 128k"}
    labels = {e["label"] for e in f["evidence"]}
    assert {"readv", "writev", "system CPU (vmstat sy)"} <= labels
    assert "readv/writev take 9" in f["title"] and f["title"].startswith("sy is 8")
    syscall = next(e for e in f["evidence"] if e["label"] == "readv")
    assert syscall["ref"] == {"syscall": "readv", "role": "proxy"}


def test_more_small_buffers_still_copy_bound_from_the_config() -> None:
    f = next(f for f in evaluate(capture("buffers-128x4k")) if f["rule"] == "copy-bound-proxy")
    assert f["suggestion"]["from"] == "128 4k"
    assert f["suggestion"]["to"] == "4 128k"


@pytest.mark.parametrize("run", RUNS)
def test_large_buffers_fix_is_silent(run: str) -> None:
    assert "copy-bound-proxy" not in rules_of(evaluate(capture("buffers-4x128k", run)))


def test_listen_backlog_overflow_names_the_backlog_with_the_full_listener() -> None:
    d = SCENARIOS / "listen-backlog"
    data = run_data({"ss-ltn": d / "ss-ltnp.txt", "netstat-s": d / "netstat-s.txt", "sysctl": d / "sysctl.txt"})
    f = next(f for f in evaluate(data) if f["rule"] == "listen-overflow")
    assert f["title"].startswith("The listen queue overflowed 873 times and somaxconn is 4096")
    listener = next(e for e in f["evidence"] if e["kind"] == "listener")
    assert listener["label"] == "127.0.0.1:18777 (python3)" and listener["value"] == "Recv-Q 9 at Send-Q 8"
    # the queue is the application's (8), well under somaxconn: the backlog is the knob
    assert f["suggestion"] == {"component": "nginx", "knob": "listen backlog", "from": "8", "to": "4096"}


def test_listen_overflow_from_somaxconn_when_the_queue_is_capped_by_it() -> None:
    d = SCENARIOS / "listen-backlog"
    data = run_data({"ss-ltn": d / "ss-ltnp.txt", "sysctl": d / "sysctl.txt"})
    data.sysctl["net.core.somaxconn"] = "8"
    f = next(f for f in evaluate(data) if f["rule"] == "listen-overflow")
    assert f["suggestion"] == {"component": "kernel", "knob": "net.core.somaxconn", "from": "8", "to": "4096"}


def test_listeners_with_room_are_silent() -> None:
    data = run_data({"ss-ltn": FIXTURES / "ss-ltn" / "local_iproute2-6.1_ltn_overflow.txt"})
    # the same capture without the one overflowing listener
    data.summaries[0][2]["listeners"] = [x for x in data.summaries[0][2]["listeners"] if not x["full"]]
    assert "listen-overflow" not in rules_of(evaluate(data))


def test_syn_flooding_in_dmesg_is_a_listen_overflow() -> None:
    data = run_data({"dmesg": FIXTURES / "dmesg" / "netdev_syn_flood_callerid.txt"})
    f = next(f for f in evaluate(data) if f["rule"] == "listen-overflow")
    log = next(e for e in f["evidence"] if e["kind"] == "log")
    assert log["value"].startswith("10 x 'TCP: request_sock_TCP: Possible SYN flooding on port 127.0.0.1:23456")
    assert log["ref"]["line"] == 2


def test_small_port_range_exhausted_by_time_wait() -> None:
    d = SCENARIOS / "port-range"
    data = run_data({"ss-s": d / "ss-s.txt", "sysctl": d / "sysctl.txt"})
    f = next(f for f in evaluate(data) if f["rule"] == "timewait-ports")
    assert f["suggestion"] == {"component": "kernel", "knob": "net.ipv4.ip_local_port_range",
                               "from": "32768 32818", "to": "1024 65535"}
    assert "51 sockets sit in TIME_WAIT" in f["title"] and "holds 51 ports" in f["title"]


def test_many_time_wait_without_reuse_names_tcp_tw_reuse() -> None:
    d = SCENARIOS / "tw-reuse"
    data = run_data({"ss-s": d / "ss-s.txt", "sysctl": d / "sysctl.txt"})
    f = next(f for f in evaluate(data) if f["rule"] == "timewait-ports")
    assert f["title"] == ("15,000 sockets sit in TIME_WAIT, the local port range holds 28,232 ports"
                          " and tcp_tw_reuse is 0")
    assert f["suggestion"] == {"component": "kernel", "knob": "net.ipv4.tcp_tw_reuse", "from": "0", "to": "1"}


def test_time_wait_on_a_wide_range_is_silent() -> None:
    d = SCENARIOS / "port-range"
    data = run_data({"ss-s": d / "ss-s.txt", "sysctl": d / "sysctl.txt"})
    data.sysctl["net.ipv4.ip_local_port_range"] = "32768 60999"
    assert "timewait-ports" not in rules_of(evaluate(data))


def test_conntrack_table_full_from_dmesg() -> None:
    data = run_data({"dmesg": SCENARIOS / "conntrack" / "dmesg.txt"})
    data.sysctl["net.netfilter.nf_conntrack_max"] = "200"
    f = next(f for f in evaluate(data) if f["rule"] == "conntrack-full")
    assert f["severity"] == "critical"
    assert f["title"] == "dmesg says `nf_conntrack: table full`, and nf_conntrack_max is 200"
    assert f["suggestion"] == {"component": "kernel", "knob": "net.netfilter.nf_conntrack_max", "from": "200",
                               "to": "262144"}


def test_a_healthy_kernel_log_is_silent() -> None:
    data = run_data({"dmesg": FIXTURES / "dmesg" / "local_6.18_boot.txt"})
    assert evaluate(data) == []


@pytest.mark.parametrize(("fixture", "layer"), [
    ("4.1.0_non2xx.txt", "non-2xx"),
    ("4.1.0_c500_socket_errors.txt", ""),
    ("4.1.0_zero_responses.txt", "no request completed"),
])
def test_errors_make_the_run_invalid(fixture: str, layer: str) -> None:
    data = run_data({"wrk": FIXTURES / "wrk" / fixture})
    f = next(f for f in evaluate(data) if f["rule"] == "errors")
    assert f["severity"] == "critical" and "invalid" in f["title"] and layer in f["title"]
    assert f["suggestion"] is None


def test_every_rule_is_documented() -> None:
    for r in RULES:
        assert r.id and r.reads and r.thresholds and r.suggests and r.false_positives and r.docs.startswith("https://")


def test_the_rules_page_is_generated_from_the_rules() -> None:
    from perflab.findings.docs import README, rules_markdown

    assert README.read_text(encoding="utf-8") == rules_markdown(), "run: python -m perflab.findings.docs"
    for r in RULES:
        assert f"## {r.id}\n" in rules_markdown()


@pytest.mark.parametrize(("wrk", "top"), [("wrk.txt", "top-H.txt"), ("wrk-lua.txt", "top-H-lua.txt")])
def test_loadgen_on_a_host_without_idle_cpu_is_a_bound(wrk: str, top: str) -> None:
    d = SCENARIOS / "loadgen"
    data = run_data({"wrk": d / wrk, "top": d / top}, role="loadgen")
    f = next(f for f in evaluate(data) if f["rule"] == "loadgen-saturated")
    assert f["title"].startswith("The host running wrk had 0% idle CPU")
    assert f["suggestion"] is None
    idle = next(e for e in f["evidence"] if e["label"].startswith("host CPU idle"))
    assert idle["value"] == "0.0% over 2 refreshes"


def test_top_of_a_host_without_wrk_is_not_about_the_load_generator() -> None:
    data = run_data({"top": FIXTURES / "top" / "local_procps-4.0.2_b.txt"}, role="proxy")
    assert "loadgen-saturated" not in rules_of(evaluate(data))


def test_worker_processes_auto_in_a_one_cpu_cgroup() -> None:
    import json

    d = SCENARIOS / "container-workers"
    data = run_data({"config": d / "nginx.conf"}, role="proxy")
    data.facts["proxy"] = json.loads((d / "facts-1cpu.json").read_text())
    f = next(f for f in evaluate(data) if f["rule"] == "workers-above-quota")
    assert f["title"] == "worker_processes auto starts 2 workers but the cgroup allows 1 CPU(s)"
    assert f["suggestion"] == {"component": "nginx", "knob": "worker_processes", "from": "auto", "to": "1"}


def test_worker_processes_auto_without_a_cpu_limit_is_silent() -> None:
    import json

    d = SCENARIOS / "container-workers"
    data = run_data({"config": d / "nginx.conf"}, role="proxy")
    data.facts["proxy"] = json.loads((d / "facts-host.json").read_text())
    assert evaluate(data) == []


def test_nstat_listen_overflows_are_evidence() -> None:
    d = SCENARIOS / "listen-backlog"
    data = run_data({"ss-ltn": d / "ss-ltnp.txt", "nstat": FIXTURES / "nstat" / "local_iproute2-6.1_listen.txt",
                     "sysctl": d / "sysctl.txt"})
    f = next(f for f in evaluate(data) if f["rule"] == "listen-overflow")
    assert f["title"].startswith("The listen queue overflowed 873 times")
    assert any(e["label"] == "TcpExtListenOverflows (nstat)" for e in f["evidence"])
