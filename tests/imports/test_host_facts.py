"""Host facts from the files an engineer saved, read by perflab's one host-facts reader into the agent's keys:
real cgroup v1 files, nproc, getconf, lscpu and /proc/cpuinfo captured here; cgroup v2 files in the kernel's
documented format. A saved file's name says what its one number is."""

from __future__ import annotations

import pytest
from perflab.parsers import ParseError, host_facts

from tests.conftest import FIXTURES

HOST = FIXTURES / "host-facts" / "files"


def read(path: str) -> dict:
    p = HOST / path
    facts: dict = host_facts.parse(p.read_text(), file=p.name)["facts"]
    return facts


def test_each_file_gives_the_agents_keys() -> None:
    assert read("v2/cpu.max") == {"cgroup_version": 2, "cgroup_cpu_limit": 1.5, "cgroup_cpu_quota_us": 150000,
                                  "cgroup_cpu_period_us": 100000}
    assert read("v2/cpuset.cpus.effective") == {"cgroup_cpuset": "0-3,8-11", "cpus_allowed": 8, "cgroup_version": 2}
    assert read("v2/memory.max") == {"cgroup_version": 2, "cgroup_memory_max": None}
    assert read("v1-cpuset-1/cpuset.effective_cpus")["cpus_allowed"] == 1
    # v1's "no limit" is the largest page-aligned value, not 8 EiB of memory
    assert read("memory.limit_in_bytes") == {"cgroup_version": 1, "cgroup_memory_max": None}
    assert read("nproc.txt") == {"cpus_allowed": 2}
    assert read("getconf_NPROCESSORS_ONLN.txt") == {"cpus_online": 2}
    assert read("lscpu.txt") == {"cpus_online": 2, "cpu_model": "AMD EPYC"}
    assert read("proc/cpuinfo") == {"cpus_online": 2, "cpu_model": "AMD EPYC"}
    with pytest.raises(ParseError):
        host_facts.parse((HOST / "ip_route.txt").read_text(), file="ip_route.txt")


def test_v1_quota_and_period_make_the_limit_and_unlimited_stays_none() -> None:
    limited = host_facts.merge([read("v1-1.5cpu/cpu.cfs_quota_us"), read("v1-1.5cpu/cpu.cfs_period_us"),
                                read("lscpu.txt"), read("nproc.txt")])
    assert limited["cgroup_cpu_limit"] == 1.5 and limited["cpus_effective"] == 2
    unlimited = host_facts.merge([read("v1-unlimited/cpu.cfs_quota_us"), read("v1-unlimited/cpu.cfs_period_us")])
    assert unlimited.get("cgroup_cpu_limit") is None
    cpuset = host_facts.merge([read("v1-cpuset-1/cpuset.cpus"), read("v1-cpuset-1/nproc"),
                               read("v1-cpuset-1/getconf_NPROCESSORS_ONLN")])
    # inside the cpuset nproc says 1 while getconf (what worker_processes auto reads) says 2
    assert (cpuset["cpus_allowed"], cpuset["cpus_online"], cpuset["cpus_effective"]) == (1, 2, 1)


def test_lists_that_are_not_cpu_lists_are_refused() -> None:
    assert host_facts.parse_cpu_list("0-3,8-11") == [0, 1, 2, 3, 8, 9, 10, 11]
    assert host_facts.parse_cpu_list("3-1") is None and host_facts.parse_cpu_list("0-99999999") is None
    with pytest.raises(ParseError, match="CPU list"):
        host_facts.parse("zero\n", file="cpuset.cpus")
