"""The investigations of DESIGN.md section 1 beyond proxy_buffers, each from outputs in the tools' own formats:
the rule names the knob the investigation turned, with its evidence, and its healthy counterpart stays silent.

Real captures (nginx 1.22.1 here, see each fixture folder's README or INDEX.md): sendfile/tcp_nopush strace,
nstat and wrk; worker_cpu_affinity in a cpuset; cgroup files, nproc, getconf, lscpu. Quoted: the reuseport
access logs (plantegg's write-up). Composed: the busy pidstat, the ethernet nstat counts, the lock profile."""

from __future__ import annotations

from pathlib import Path

from perflab.findings.rules import evaluate
from perflab.parsers import host_facts

from .helpers import FIXTURES, SCENARIOS, profile_functions, run_data

REUSE = SCENARIOS / "reuseport"
SENDFILE = SCENARIOS / "sendfile-nopush"
AFFINITY = SCENARIOS / "worker-affinity"
BELOW = SCENARIOS / "workers-below-cpus"
LOCK = SCENARIOS / "access-log-lock"
HOST = FIXTURES / "host-facts" / "files"


def fired(data: object, rule: str) -> list[dict]:
    return [f for f in evaluate(data) if f["rule"] == rule]  # type: ignore[arg-type]


def facts_from(*paths: Path) -> dict:
    """One host's facts as an import stores them: each saved file read by the host-facts parser, merged."""
    return host_facts.merge([host_facts.parse(p.read_text(), file=p.name)["facts"] for p in paths])


# -- reuseport stalls -------------------------------------------------------------------------------------


def test_reuseport_stalls_name_tcp_rmem_with_the_access_log_timings(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text("".join(REUSE.joinpath("nginx.conf").read_text().splitlines(keepends=True)[13:16])
                   + (REUSE / "access-stalls.log").read_text())
    data = run_data({"config": REUSE / "nginx.conf", "nginx-access": log, "sysctl": REUSE / "sysctl-default.txt"})
    (f,) = fired(data, "reuseport-stall")
    assert f["suggestion"] == {"component": "kernel", "knob": "net.ipv4.tcp_rmem", "from": "4096 131072 6291456",
                               "to": "4096 131072 1048576"}
    values = {e["label"]: e["value"] for e in f["evidence"]}
    assert values["listen"] == "80 reuseport"
    assert values["upstream connect time (access log)"].startswith("p50 400 ms, p90 480 ms")
    assert values["499: the client closed the connection first"] == "3"
    assert f["title"].startswith("Upstream connects wait 480 ms (p90) behind `listen ... reuseport`, 3 clients gave up")


def test_reuseport_is_silent_once_tcp_rmem_is_capped_and_without_reuseport(tmp_path: Path) -> None:
    fmt = "".join(REUSE.joinpath("nginx.conf").read_text().splitlines(keepends=True)[13:16])
    capped, stalls = tmp_path / "capped.log", tmp_path / "stalls.log"
    capped.write_text(fmt + (REUSE / "access-rmem-capped.log").read_text())
    stalls.write_text(fmt + (REUSE / "access-stalls.log").read_text())
    healthy = run_data({"config": REUSE / "nginx.conf", "nginx-access": capped,
                        "sysctl": REUSE / "sysctl-rmem-capped.txt"})
    assert fired(healthy, "reuseport-stall") == []
    no_reuseport = run_data({"config": REUSE / "nginx-no-reuseport.conf", "nginx-access": stalls,
                             "sysctl": REUSE / "sysctl-default.txt"})
    assert fired(no_reuseport, "reuseport-stall") == []


def test_reuseport_with_waiting_workers_suggests_accept_mutex(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text("".join(REUSE.joinpath("nginx.conf").read_text().splitlines(keepends=True)[13:16])
                   + (REUSE / "access-stalls.log").read_text())
    # the proxy_buffers capture's pidstat: nginx workers at 17-46% %wait
    pidstat = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "pidstat.txt"
    data = run_data({"config": REUSE / "nginx.conf", "nginx-access": log, "sysctl": REUSE / "sysctl-default.txt",
                     "pidstat": pidstat})
    (f,) = fired(data, "reuseport-stall")
    assert f["suggestion"] == {"component": "nginx", "knob": "listen reuseport", "from": "80 reuseport",
                               "to": "80 (accept_mutex on)"}
    assert any(e["label"].startswith("nginx workers (pidstat") and "%wait up to 46" in e["value"]
               for e in f["evidence"])


# -- sendfile and tcp_nopush -----------------------------------------------------------------------------


def test_sendfile_without_nopush_is_found_in_the_real_strace_and_names_tcp_nopush() -> None:
    data = run_data({"config": SENDFILE / "nginx-tcp_nopush-off.conf", "strace": SENDFILE / "strace-f-tt-off.txt",
                     "nstat": SENDFILE / "nstat-z-off.txt", "wrk": SENDFILE / "wrk-off.txt"})
    (f,) = fired(data, "sendfile-nopush")
    assert f["suggestion"] == {"component": "nginx", "knob": "tcp_nopush", "from": "off", "to": "on"}
    strace = next(e for e in f["evidence"] if e["kind"] == "syscall")
    assert "no setsockopt TCP_CORK" in strace["value"] and "TCP_NODELAY" in strace["value"]
    nstat = next(e for e in f["evidence"] if e["kind"] == "counter")
    assert nstat["value"].startswith("4.01 for 19.8 KiB responses")  # loopback: 13,643 segments, 3,402 requests


def test_tcp_nopush_on_is_silent_and_so_is_a_corked_or_quickack_strace(tmp_path: Path) -> None:
    on = run_data({"config": SENDFILE / "nginx-tcp_nopush-on.conf", "strace": SENDFILE / "strace-f-tt-on.txt",
                   "nstat": SENDFILE / "nstat-z-on.txt", "wrk": SENDFILE / "wrk-on.txt"})
    assert fired(on, "sendfile-nopush") == []
    # the config says off but the worker corks (tcp_nopush set where the snapshot does not show it)
    corked = run_data({"config": SENDFILE / "nginx-tcp_nopush-off.conf", "strace": SENDFILE / "strace-f-tt-on.txt"})
    assert fired(corked, "sendfile-nopush") == []
    quick = tmp_path / "strace-quickack.txt"
    quick.write_text((SENDFILE / "strace-f-tt-off.txt").read_text().replace("TCP_NODELAY", "TCP_QUICKACK"))
    assert fired(run_data({"config": SENDFILE / "nginx-tcp_nopush-off.conf", "strace": quick}), "sendfile-nopush") == []


def test_sendfile_packets_per_response_on_ethernet_without_strace(tmp_path: Path) -> None:
    # Composed: the real nstat -z layout with the counts an Ethernet server sends for 3,402 responses of
    # 20,242 bytes: 14 full segments each with the headers corked in, 15 when the headers leave alone.
    real = (SENDFILE / "nstat-z-off.txt").read_text()
    for segs, expect in ((3402 * 15, True), (3402 * 14, False)):
        text = real.replace("TcpOutSegs                      13643", f"TcpOutSegs                      {segs}")
        path = tmp_path / f"nstat-{segs}.txt"
        path.write_text(text)
        data = run_data({"config": SENDFILE / "nginx-tcp_nopush-off.conf", "nstat": path, "wrk": SENDFILE / "wrk-off.txt"})
        assert bool(fired(data, "sendfile-nopush")) is expect, segs


# -- worker_processes and worker_cpu_affinity against the cgroup, from imported facts ------------------------


def test_imported_cpuset_and_lscpu_make_workers_above_quota_and_affinity_fire() -> None:
    facts = facts_from(HOST / "v1-cpuset-1" / "cpuset.cpus", HOST / "v1-cpuset-1" / "nproc", HOST / "lscpu.txt")
    assert facts["cgroup_cpuset"] == "1" and facts["cpus_allowed"] == 1 and facts["cpus_online"] == 2
    data = run_data({"config": AFFINITY / "nginx.conf"})
    data.facts["proxy"] = facts
    by_rule = {f["rule"]: f for f in evaluate(data)}
    # worker_processes auto: nginx started 2 workers in the 1-CPU cpuset (error-cpuset-1.log)
    assert by_rule["workers-above-quota"]["suggestion"] == {"component": "nginx", "knob": "worker_processes",
                                                            "from": "auto", "to": "1"}
    aff = by_rule["worker-affinity-cpuset"]
    assert aff["suggestion"] == {"component": "nginx", "knob": "worker_cpu_affinity", "from": "auto", "to": "auto 10"}
    assert "CPU #0, outside the cpuset 1" in aff["title"]
    # what nginx itself logged, captured in that cpuset
    assert "sched_setaffinity() failed (22: Invalid argument)" in (AFFINITY / "error-cpuset-1.log").read_text()


def test_affinity_and_quota_are_silent_on_the_whole_host() -> None:
    facts = facts_from(HOST / "lscpu.txt", HOST / "nproc.txt")
    facts["cgroup_cpuset"] = "0-1"
    data = run_data({"config": AFFINITY / "nginx.conf"})
    data.facts["proxy"] = facts
    rules = {f["rule"] for f in evaluate(data)}
    assert not rules & {"workers-above-quota", "worker-affinity-cpuset", "workers-below-cpus"}
    assert "sched_setaffinity() failed" not in (AFFINITY / "error-host.log").read_text()


def test_v1_quota_files_limit_auto_workers_on_a_larger_host() -> None:
    facts = facts_from(HOST / "v1-1.5cpu" / "cpu.cfs_quota_us", HOST / "v1-1.5cpu" / "cpu.cfs_period_us")
    assert facts["cgroup_cpu_limit"] == 1.5
    facts["cpus_online"] = 8  # an 8-CPU host (lscpu CPU(s): 8)
    data = run_data({"config": AFFINITY / "nginx.conf"})
    data.facts["proxy"] = facts
    (f,) = fired(data, "workers-above-quota")
    assert f["suggestion"]["to"] == "2" and "starts 8 workers" in f["title"]


def test_fewer_busy_workers_than_cpus_names_worker_processes() -> None:
    facts = facts_from(HOST / "lscpu.txt", HOST / "nproc.txt")
    busy = run_data({"config": BELOW / "nginx.conf", "pidstat": BELOW / "pidstat-busy-composed.txt"})
    busy.facts["proxy"] = facts
    (f,) = fired(busy, "workers-below-cpus")
    assert f["suggestion"] == {"component": "nginx", "knob": "worker_processes", "from": "1", "to": "auto"}
    # the real capture: one worker at 25% CPU, waiting for a CPU shared with other work: not CPU-bound
    idle = run_data({"config": BELOW / "nginx.conf", "pidstat": BELOW / "pidstat-contended.txt"})
    idle.facts["proxy"] = facts
    assert fired(idle, "workers-below-cpus") == []


# -- access log lock --------------------------------------------------------------------------------------


def test_osq_lock_under_access_log_writes_names_access_log_buffer() -> None:
    data = run_data({"config": SENDFILE / "nginx-tcp_nopush-on.conf"})
    data.configs[0] = ("proxy", "nginx.conf", data.configs[0][2].replace("access_log off;",
                                                                         "access_log /var/log/nginx/access.log;"), None)
    data.profiles.append(profile_functions(LOCK / "osq-lock.folded"))
    (f,) = fired(data, "access-log-lock")
    assert f["suggestion"] == {"component": "nginx", "knob": "access_log", "from": "/var/log/nginx/access.log",
                               "to": "/var/log/nginx/access.log buffer=64k flush=1s"}
    assert f["title"].startswith("rwsem_down_write_slowpath takes 57% of the CPU samples under the access log's "
                                 "write path (ngx_http_log_handler 61%)")
    assert {e["label"] for e in f["evidence"]} >= {"rwsem_down_write_slowpath", "ngx_http_log_handler", "access_log"}


def test_access_log_lock_is_silent_when_buffered() -> None:
    data = run_data({"config": SENDFILE / "nginx-tcp_nopush-on.conf"})
    data.configs[0] = ("proxy", "nginx.conf", data.configs[0][2].replace(
        "access_log off;", "access_log /var/log/nginx/access.log combined buffer=64k flush=1s;"), None)
    data.profiles.append(profile_functions(LOCK / "osq-lock.folded"))
    assert fired(data, "access-log-lock") == []
    unbuffered = run_data({"config": SENDFILE / "nginx-tcp_nopush-on.conf"})
    unbuffered.profiles.append(profile_functions(LOCK / "buffered.folded"))
    assert fired(unbuffered, "access-log-lock") == []
