"""The agent's pure parts, in process: retry schedule, host facts parsing, collector specs, spool."""

from __future__ import annotations

import email.utils
import json
import os
import random
import time
from pathlib import Path

import pytest
from perflab_agent import commands, facts, runcmd, transport
from perflab_agent.collectors import parse_spec
from perflab_agent.spool import Spool, SpoolLocked

FIXTURES = Path(__file__).parent / "fixtures"


# ---------------------------------------------------------------- retry schedule


def test_backoff_doubles_from_one_second_and_caps_at_sixty() -> None:
    ceilings = [transport.backoff_delay(n, rand=lambda: 1.0) for n in range(1, 10)]
    assert ceilings == [1, 2, 4, 8, 16, 32, 60, 60, 60]
    assert transport.backoff_delay(1000, rand=lambda: 1.0) == 60


def test_backoff_is_full_jitter_below_the_ceiling() -> None:
    rng = random.Random(7)
    delays = [transport.backoff_delay(8, rand=rng.random) for _ in range(2000)]
    assert 0 <= min(delays) < 3 and 57 < max(delays) <= 60
    # Spread over the whole range, so agents that failed together do not come back together.
    assert 27 < sum(delays) / len(delays) < 33


def test_backoff_honours_retry_after_as_a_floor() -> None:
    assert transport.backoff_delay(1, retry_after=5, rand=lambda: 0.0) == 5
    # The server's word wins over our 60 s cap...
    assert transport.backoff_delay(1, retry_after=120, rand=lambda: 1.0) == 120
    # ...within reason: a broken header cannot park the agent for a day.
    assert transport.backoff_delay(1, retry_after=86400, rand=lambda: 1.0) == transport.RETRY_AFTER_MAX_S
    # A short Retry-After does not cut an exponential backoff already longer.
    assert transport.backoff_delay(7, retry_after=1, rand=lambda: 1.0) == 60


def test_retry_after_parses_seconds_and_http_dates() -> None:
    now = time.time()
    assert transport.parse_retry_after("7") == 7
    assert transport.parse_retry_after(" 2.5 ") == 2.5
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= transport.parse_retry_after(date, now=now) <= 31
    assert transport.parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0
    for junk in (None, "", "soon", "inf", "nan"):
        assert transport.parse_retry_after(junk) is None


# ---------------------------------------------------------------- host facts


def _fixture_files(name: str) -> dict[str, str]:
    """The '== header' sections of a cgroup fixture file."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in (FIXTURES / "cgroup" / name).read_text().splitlines():
        if line.startswith("== "):
            current = line[3:]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: "\n".join(v) + "\n" for k, v in sections.items()}


def test_cgroup_v1_unlimited_quota_is_no_limit() -> None:
    files = _fixture_files("v1_cpu_files.txt")
    read = {"/sys/fs/cgroup/cpu/" + k.split("/", 1)[1]: v for k, v in files.items() if k.startswith("cpu/")}.get
    proc = (FIXTURES / "cgroup" / "v1_proc_self_cgroup.txt").read_text()
    mounts = (FIXTURES / "cgroup" / "v1_mountinfo_excerpt.txt").read_text()
    assert read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") == "-1\n"
    assert facts.cgroup_cpu_limit(proc, mounts, read) is None
    assert facts.cgroup_version(mounts) == 1


def test_cgroup_v1_quota_in_a_nested_group() -> None:
    proc = "4:cpu,cpuacct:/docker/abc\n"
    mounts = "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    files = {"/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "50000\n",
             "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
             "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
             "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n"}
    assert facts.cgroup_cpu_limit(proc, mounts, files.get) == 0.5


def test_cgroup_v2_cpu_max_and_the_smallest_ancestor_limit() -> None:
    examples = _fixture_files("v2_examples.txt")
    proc = examples["/proc/self/cgroup"]
    mounts = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
    base = "/sys/fs/cgroup/system.slice"
    unlimited = {base + "/nginx.service/cpu.max": examples["cpu.max (unlimited)"]}
    assert facts.cgroup_cpu_limit(proc, mounts, unlimited.get) is None
    limited = {base + "/nginx.service/cpu.max": examples["cpu.max (1.5 CPUs)"]}
    assert facts.cgroup_cpu_limit(proc, mounts, limited.get) == 1.5
    parent_tighter = dict(limited, **{base + "/cpu.max": "50000 100000\n"})
    assert facts.cgroup_cpu_limit(proc, mounts, parent_tighter.get) == 0.5
    assert facts.cgroup_version(mounts) == 2
    assert facts.parse_cpu_list(examples["cpuset.cpus.effective"]) == 8


def test_host_facts_of_this_machine() -> None:
    found = facts.gather(tools=("vmstat",))
    assert found["cpus_online"] >= 1 and found["mem_total_kb"] > 0 and found["kernel"]
    assert found["tool_versions"]["vmstat"].startswith("vmstat from procps")
    assert "lo" in found["nic_queues"] and set(found["nic_queues"]["lo"]) == {"rx", "tx"}


# ---------------------------------------------------------------- command line pieces


def test_collector_specs() -> None:
    assert parse_spec("vmstat").name == "vmstat"
    spec = parse_spec("strace-c:nginx:30")
    assert (spec.kind, spec.target, spec.seconds, spec.name) == ("strace-c", "nginx", 30, "strace-c:nginx")
    assert parse_spec("perf:nginx").seconds == 10
    assert parse_spec("pidstat:php-fpm7.4").name == "pidstat:php-fpm7.4"
    for bad in ("top", "vmstat:x", "pidstat:", "pidstat:a b", "pidstat:../x", "netqtop:", "strace-c:nginx:0",
                "strace-c:nginx:99999"):
        with pytest.raises(ValueError):
            parse_spec(bad)


def test_wrk_duration_and_requests_per_second() -> None:
    assert runcmd.wrk_duration(["wrk", "-c", "500", "-d", "60s", "http://x/"]) == 60
    assert runcmd.wrk_duration(["wrk", "-d2m", "http://x/"]) == 120
    assert runcmd.wrk_duration(["/usr/bin/wrk", "--duration=1h", "http://x/"]) == 3600
    assert runcmd.wrk_duration(["wrk", "http://x/"]) == 10
    assert runcmd.wrk_duration(["curl", "-d", "5", "http://x/"]) is None
    assert runcmd.parse_rps("Requests/sec:  12722.92") == 12722.92
    assert runcmd.parse_rps("Transfer/sec:      1.49GB") is None


def test_compare_renders_value_delta_and_verdict() -> None:
    doc = {"baseline": "direct", "experiments": ["direct", "default"],
           "metrics": [{"key": "wrk.requests_per_sec", "direction": "higher_is_better",
                        "values": {"direct": 12500.4, "default": 6500.0}, "runs": {"direct": 3, "default": 3},
                        "delta_pct": {"default": -48.0}, "verdict": {"default": "worse"}}]}
    table = commands.render_table(doc)
    assert "direct (baseline, 3 runs)" in table and "default (3 runs)" in table
    assert "12500.4" in table and "6,500 -48.0%, ❌ worse" in table
    markdown = commands.render_markdown(doc).splitlines()
    assert markdown[0] == "| metric | direct (baseline, 3 runs) | default (3 runs) |"
    assert markdown[2] == "| wrk.requests_per_sec (higher is better) | 12500.4 | 6,500 -48.0%, ❌ worse |"


# ---------------------------------------------------------------- spool


RUN = "6f1c2a3b-0000-4000-8000-000000000001"


def _line(i: int) -> list:
    return [1763790000.0 + i, 100.0 + i, f"line {i}"]


def test_spool_replays_in_seq_order_after_a_restart(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path), 10**9, 3600)
    spool.open_stream(RUN, "vmstat", "vmstat", "proxy")
    spool.open_stream(RUN, "pidstat:nginx", "pidstat", "proxy")
    for i in range(5):
        spool.seal(RUN, "vmstat", [_line(i)])
        spool.seal(RUN, "pidstat:nginx", [_line(i)])
    spool.ack(spool.checkout(10**9, 1)[0])  # vmstat 1 committed
    spool.close()
    again = Spool(str(tmp_path), 10**9, 3600)
    items = again.checkout(10**9, 100)
    by_stream: dict[str, list[int]] = {}
    for item in items:
        by_stream.setdefault(item.key[1], []).append(item.key[2])
    assert by_stream == {"vmstat": [2, 3, 4, 5], "pidstat:nginx": [1, 2, 3, 4, 5]}
    again.release(items)
    # Seqs continue where they stopped, even once every file was acknowledged.
    for item in again.checkout(10**9, 100):
        again.ack(item)
    again.close()
    third = Spool(str(tmp_path), 10**9, 3600)
    third.open_stream(RUN, "vmstat", "vmstat", "proxy")
    assert third.seal(RUN, "vmstat", [_line(9)]) == 6


def test_spool_is_owned_by_one_process(tmp_path: Path) -> None:
    first = Spool(str(tmp_path), 10**6, 3600)
    with pytest.raises(SpoolLocked):
        Spool(str(tmp_path), 10**6, 3600)
    first.close()
    Spool(str(tmp_path), 10**6, 3600).close()


def test_spool_overflow_drops_the_oldest_lines_counts_them_and_keeps_every_seq(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path), 4000, 3600)
    spool.open_stream(RUN, "load", "command", "loadgen")
    for i in range(60):
        spool.seal(RUN, "load", [_line(2 * i), _line(2 * i + 1)])
    spool.seal(RUN, "load", [], closed=True)
    on_disk = sum(p.stat().st_size for p in tmp_path.rglob("*.json") if p.name[0].isdigit())
    assert on_disk <= 4000
    items = spool.checkout(10**9, 1000)
    seqs = [item.key[2] for item in items]
    assert seqs == list(range(1, 62)), "every seq is sent, dropped ones without lines"
    lines = [line[2] for item in items for line in item.batch["lines"]]
    dropped = items[-1].batch["dropped"]
    assert dropped > 0 and len(lines) + dropped == 120
    assert lines == [f"line {i}" for i in range(dropped, 120)], "the oldest lines went first"
    assert all(item.batch["dropped"] == dropped for item in items)
    assert items[-1].batch["closed"] and not any(item.batch["closed"] for item in items[:-1])
    assert spool.stats()["dropped_lines"] == dropped
    for item in items:
        spool.ack(item)
    assert spool.pending(RUN) == 0


def test_spool_counts_and_keeps_rejected_batches(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path), 10**6, 3600)
    spool.open_stream(RUN, "vmstat", "vmstat", "proxy")
    spool.seal(RUN, "vmstat", [_line(1)])
    [item] = spool.checkout(10**6, 10)
    spool.reject(item, "HTTP 422: bad line")
    assert spool.stats()["rejected_batches"] == 1
    kept = list((tmp_path / "rejected").glob("*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["lines"][0][2] == "line 1"
    # Its seq goes again, empty, saying how many lines were refused: the server must not wait for it.
    [stand_in] = spool.checkout(10**6, 10)
    assert (stand_in.batch["seq"], stand_in.batch["lines"], stand_in.batch["refused_lines"]) == (1, [], 1)
    # A stand-in refused too is set aside for good: nothing is retried forever.
    spool.reject(stand_in, "HTTP 422: still bad")
    assert spool.checkout(10**6, 10) == []
    assert spool.pending(RUN) == 0


def test_spool_age_limit_counts_old_lines_as_dropped(tmp_path: Path) -> None:
    spool = Spool(str(tmp_path), 10**6, 60)
    spool.open_stream(RUN, "vmstat", "vmstat", "proxy")
    spool.seal(RUN, "vmstat", [_line(1), _line(2)])
    spool.seal(RUN, "vmstat", [_line(3)])
    old = time.time() - 120
    os.utime(tmp_path / RUN / "vmstat" / "1.json", (old, old))
    spool.close()
    spool = Spool(str(tmp_path), 10**6, 60)
    spool.expire()
    items = spool.checkout(10**6, 10)
    assert [(i.key[2], len(i.batch["lines"]), i.batch["dropped"]) for i in items] == [(1, 0, 2), (2, 1, 2)]


# ---------------------------------------------------------------- clock offset


def test_clock_offset_comes_from_the_fastest_round_trip() -> None:
    from perflab_agent.clock import ClockEstimator

    clock = ClockEstimator()
    assert clock.estimate(now=0.0) == (None, None)
    # Two quick exchanges with clocks in step, then 5 s of backend latency before the server reads its
    # clock: the midpoint of a slow exchange would say the server is 2.5 s ahead.
    clock.add(1000.01, 1000.0, 1000.02, now=0.0)
    clock.add(1010.005, 1010.0, 1010.01, now=10.0)
    for i in range(5):
        t = 1020.0 + 10 * i
        clock.add(t + 5.0, t, t + 5.001, now=20.0 + 10 * i)
    offset, error = clock.estimate(now=70.0)
    assert abs(offset) < 0.01 and error < 0.01
    # A real 3 s skew measured over a fast exchange is reported as such.
    skewed = ClockEstimator()
    skewed.add(2003.0, 2000.0, 2000.02, now=0.0)
    assert skewed.estimate(now=1.0) == (2.99, 0.01)


def test_only_slow_exchanges_give_an_error_bar_as_wide_as_the_latency() -> None:
    from perflab_agent.clock import ClockEstimator

    clock = ClockEstimator()
    for i in range(4):
        t = 5000.0 + 10 * i
        clock.add(t + 5.0, t, t + 5.0, now=float(i))
    offset, error = clock.estimate(now=4.0)
    # The server's verdict (ingest.service.evaluate) weighs |offset| - error: no evidence of skew here.
    assert offset == 2.5 and error == 2.5 and abs(offset) - error <= 1.0
    # Old exchanges age out; NaN and a stepped clock are ignored.
    clock.add(float("nan"), 1.0, 2.0, now=5.0)
    clock.add(10.0, 2.0, 1.0, now=5.0)
    assert clock.estimate(now=1e6) == (None, None)


def test_a_quiet_load_stream_sends_an_empty_batch_each_keepalive_period() -> None:
    """The server ends runs whose load stream falls silent; a quiet `wrk -d 20m` must not look dead."""
    from perflab_agent.streams import Limits, LineStream

    sealed: list[tuple[list[object], bool]] = []

    class Sink:
        def seal(self, run_id: str, name: str, lines: list[object], closed: bool = False,
                 error: object = None) -> int:
            sealed.append((lines, closed))
            return len(sealed)

    stream = LineStream(Sink(), RUN, "load", keepalive_s=0.3)
    limits = Limits()
    stream.seal(limits)
    assert sealed == [], "nothing printed and not quiet for long yet"
    time.sleep(0.35)
    stream.seal(limits)
    stream.seal(limits)
    assert sealed == [([], False)], "one empty batch per quiet period"
    stream.add("Running 20m test @ http://proxy:8080/")
    stream.seal(limits)
    assert [len(lines) for lines, _ in sealed] == [0, 1]


# ---------------------------------------------------------------- load generators beyond wrk


def test_run_streams_each_load_generator_under_its_own_parser_kind() -> None:
    # the server parses a stream by its source: k6's summary must not land as an unparsed "command"
    assert runcmd.load_source(["wrk", "-d", "5s", "http://x/"]) == "wrk"
    assert runcmd.load_source(["k6", "run", "script.js"]) == "k6"
    assert runcmd.load_source(["/usr/bin/hey", "-z", "5s", "http://x/"]) == "hey"
    assert runcmd.load_source(["ab", "-n", "100", "http://x/"]) == "ab"
    assert runcmd.load_source(["vegeta", "report", "results.bin"]) == "vegeta"
    assert runcmd.load_source(["curl", "http://x/"]) == "command"
