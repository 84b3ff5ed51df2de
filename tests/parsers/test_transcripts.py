"""Terminal transcripts (issue 18 item 2): a session is split at its prompts, the typed command picks
the parser and informs it, host-fact commands give facts, and unknown commands are reported with
their command. The transcripts were recorded on this machine through a pseudo-terminal
(tests/fixtures/INDEX.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from perflab.parsers import ParseError, parse
from perflab.parsers.host_facts import merge
from perflab.parsers.split import split
from perflab.parsers.transcript import command_kind, prompt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _parts(name: str) -> list[dict]:
    return split((FIXTURES / "transcripts" / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize(("line", "expected"), [
    ("$ vmstat 5", ("$", "vmstat 5")),
    ("root@vm:~# cat /sys/fs/cgroup/cpu.max", ("root@vm:~#", "cat /sys/fs/cgroup/cpu.max")),
    ("[root@h ~]# ss -tan", ("[root@h ~]#", "ss -tan")),
    ("sh-4.2# cat /sys/fs/cgroup/cpuset/cpuset.cpus", ("sh-4.2#", "cat /sys/fs/cgroup/cpuset/cpuset.cpus")),
    ("bash-5.1$ nproc", ("bash-5.1$", "nproc")),
    ("web1:~ # lscpu", ("web1:~ #", "lscpu")),
    ("me@mac ~ % hey -z 5s http://x/", ("me@mac ~ %", "hey -z 5s http://x/")),
    ("(venv) me@host:~/b$ k6 run a.js", ("(venv) me@host:~/b$", "k6 run a.js")),
    ("# ./netqtop.py -n lo -i 1", ("#", "./netqtop.py -n lo -i 1")),
    ("root@vm:~#", ("root@vm:~#", "")),
    # tool output that only looks like a prompt
    ("# Time        UID       PID    %usr %system  Command", None),
    ("% time     seconds  usecs/call     calls    errors syscall", None),
    ("#kernel", None),
    ("  10% in 0.0002 secs", None),
    ("$1.50 total", None),
])
def test_prompts_of_common_shells(line: str, expected: tuple[str, str] | None) -> None:
    assert prompt(line) == expected


def test_the_command_picks_the_parser_and_its_options() -> None:
    assert command_kind("vmstat -S M 5")[:2] == ("vmstat", {"memory_unit": "M"})
    assert command_kind("vmstat 5")[2]["interval_s"] == 5.0
    assert command_kind("LC_ALL=C pidstat -u -w 2 10")[2]["interval_s"] == 2.0
    assert command_kind("sudo ss -tupna")[0] == "ss-tan"
    assert command_kind("ss -ltnp")[0] == "ss-ltn"
    assert command_kind("ss -s")[0] == "ss-s"
    assert command_kind("strace -c -f -p 123")[0] == "strace-c"
    assert command_kind("strace -f -e trace=readv -p 123")[0] == "strace"
    assert command_kind("perf stat -a sleep 5")[0] == "perf-stat"
    assert command_kind("netstat -s")[0] == "netstat-s"
    assert command_kind("cat /proc/sys/net/core/somaxconn")[0] == "host-facts"
    assert command_kind("cat /var/log/nginx/access.log")[0] == "nginx-access"
    assert command_kind("timeout 30 wrk -t2 -c100 -d10s http://x/")[0] == "wrk"
    assert command_kind("ip route")[0] is None and command_kind("ethtool -l eth0")[0] is None


def test_a_debian_root_session_is_one_part_per_command() -> None:
    parts = _parts("local_debian_root_prompt.txt")
    assert [(p["kind"], p["command"]) for p in parts] == [
        ("vmstat", "vmstat 1 3"),
        ("host-facts", "nproc"),
        ("host-facts", "getconf _NPROCESSORS_ONLN"),
        ("host-facts", "cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
        ("host-facts", "cat /sys/fs/cgroup/cpu/cpu.cfs_period_us"),
        ("host-facts", "cat /sys/fs/cgroup/cpuset/cpuset.cpus"),
        ("host-facts", "cat /sys/fs/cgroup/memory/memory.limit_in_bytes"),
        ("sysctl", "sysctl net.core.somaxconn net.ipv4.tcp_rmem"),
        ("ss-s", "ss -s"),
        (None, "ip route"),
        (None, "uname -r"),
        (None, "exit"),
    ]
    vmstat = parts[0]
    assert vmstat["interval_s"] == 1.0 and vmstat["start_line"] == 1 and vmstat["end_line"] == 6
    assert vmstat["prompt"] == "root@vm:~#"
    assert len(parse("vmstat", vmstat["text"])["samples"]) == 3
    sysctl = parse("sysctl", parts[7]["text"])
    assert sysctl["values"]["net.core.somaxconn"] == "4096"
    route = parts[9]
    assert route["preview"][0].startswith("default via") and "ip route" in route["warnings"][0]
    facts = merge([parse("host-facts", p["text"])["facts"] for p in parts if p["kind"] == "host-facts"])
    # the agent's keys: what its hello carries for this host
    assert facts == {"cpus_allowed": 2, "cpus_online": 2, "cgroup_version": 1, "cgroup_cpu_quota_us": None,
                     "cgroup_cpu_limit": None, "cgroup_cpu_period_us": 100000, "cgroup_cpuset": "0-1",
                     "cgroup_memory_max": None, "cpus_effective": 2}


def test_sessions_of_other_shells() -> None:
    rhel = _parts("local_rhel_bracket_prompt.txt")
    assert [p["kind"] for p in rhel] == ["pidstat", "host-facts", "ss-ltn", None, None]
    # recorded through a terminal: pidstat's colors are dropped, its rows read
    assert len(parse("pidstat", rhel[0]["text"])["samples"]) == 21
    assert parse("host-facts", rhel[1]["text"])["facts"]["cpus_online"] == 2
    assert "command not found" in rhel[3]["warnings"][0]
    sh = _parts("local_sh_prompt.txt")
    assert [p["kind"] for p in sh] == ["host-facts", "host-facts", "host-facts", "nstat", None]
    assert parse("host-facts", sh[1]["text"])["sysctl"] == {"net.core.somaxconn": "4096"}
    assert parse("nstat", sh[3]["text"])["counters"]["TcpExtListenOverflows"] == 0
    dollar = _parts("local_dollar_prompt.txt")
    assert [p["kind"] for p in dollar] == ["hey", "host-facts", "top", None]
    assert parse("hey", dollar[0]["text"])["requests"] == 500
    assert parse("host-facts", dollar[1]["text"])["facts"] == {"cpu_model": "AMD EPYC", "cpus_online": 2}
    user = _parts("local_user_host_prompt.txt")
    assert [p["kind"] for p in user] == ["ab", None, "strace-c", None]
    assert parse("ab", user[0]["text"])["requests"] == 300


def test_host_facts_of_composed_cgroup_v2_files() -> None:
    # cgroup v2 files are not mounted on this machine: their documented one-line formats
    assert parse("host-facts", "$ cat /sys/fs/cgroup/cpu.max\n150000 100000\n")["facts"] == {
        "cgroup_version": 2, "cgroup_cpu_quota_us": 150000, "cgroup_cpu_period_us": 100000, "cgroup_cpu_limit": 1.5}
    assert parse("host-facts", "# cat /sys/fs/cgroup/cpu.max\nmax 100000\n")["facts"]["cgroup_cpu_limit"] is None
    assert parse("host-facts", "sh-4.2# cat /sys/fs/cgroup/cpuset/cpuset.cpus\n45\n")["facts"] == {
        "cgroup_cpuset": "45", "cpus_allowed": 1}
    assert parse("host-facts", "$ cat /sys/fs/cgroup/memory.max\n2147483648\n")["facts"] == {
        "cgroup_version": 2, "cgroup_memory_max": 2147483648}
    assert parse("host-facts", "45\n", command="cat /sys/fs/cgroup/cpuset.cpus.effective")["facts"][
        "cgroup_cpuset"] == "45"
    quota = parse("host-facts", "$ cat cpu.cfs_quota_us\n200000\n")
    period = parse("host-facts", "$ cat cpu.cfs_period_us\n100000\n")
    assert "cgroup_cpu_limit" not in quota["facts"]
    assert merge([quota["facts"], period["facts"]])["cgroup_cpu_limit"] == 2.0
    with pytest.raises(ParseError, match="says nothing"):
        parse("host-facts", "45\n")
    with pytest.raises(ParseError, match="CPU list"):
        parse("host-facts", "$ cat /sys/fs/cgroup/cpuset.cpus\nbanana\n")


def test_lscpu_is_read_with_or_without_its_command() -> None:
    text = (FIXTURES / "transcripts" / "local_rhel_bracket_prompt.txt").read_text()
    part = next(p for p in split(text) if p.get("command") == "lscpu") if "lscpu" in text else None
    lscpu = "Architecture: x86_64\nCPU(s): 8\nOn-line CPU(s) list: 0-7\nThread(s) per core: 2\n" \
            "Core(s) per socket: 4\nSocket(s): 1\nModel name: Intel(R) Xeon(R)\nNUMA node(s): 1\n"
    facts = parse("host-facts", lscpu)["facts"]
    assert facts == {"cpus_online": 8, "cpu_model": "Intel(R) Xeon(R)"}
    assert parse("auto", lscpu)["kind"] == "host-facts"
    if part is not None:
        assert part["kind"] == "host-facts"


def test_a_paste_without_prompts_splits_as_before() -> None:
    text = (FIXTURES / "wrk" / "4.1.0_latency_nginx.txt").read_text()
    [part] = split(text)
    assert part["kind"] == "wrk" and "command" not in part and part["text"] == text


def test_a_prompt_line_does_not_change_what_a_parser_reads() -> None:
    text = (FIXTURES / "strace-c" / "6.1_default.txt").read_text() if (
        FIXTURES / "strace-c" / "6.1_default.txt").exists() else next((FIXTURES / "strace-c").glob("*.txt")).read_text()
    plain = parse("strace-c", text)
    typed = parse("strace-c", "$ strace -c -f -p 1234\n" + text)
    assert typed["syscalls"] == plain["syscalls"] and typed["total"] == plain["total"]
