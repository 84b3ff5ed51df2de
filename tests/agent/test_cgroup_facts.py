"""cgroup facts next to nproc: memory.max, the cpuset, and the CPUs a containerised process can use."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

from perflab_agent import facts

from tests.agent.helpers import AGENTS, PY36

FIXTURES = Path(__file__).parent / "fixtures" / "cgroup"
V2_MOUNT = "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def _sections(name: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in (FIXTURES / name).read_text().splitlines():
        if line.startswith("== "):
            current = line[3:]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: "\n".join(v) + "\n" for k, v in sections.items()}


def test_v2_cpuset_and_memory_max_up_the_tree() -> None:
    ex = _sections("v2_examples.txt")
    base = "/sys/fs/cgroup/system.slice"
    files = {base + "/nginx.service/cpuset.cpus.effective": ex["cpuset.cpus.effective"],
             base + "/nginx.service/memory.max": "max\n", base + "/memory.max": "536870912\n"}
    proc = ex["/proc/self/cgroup"]
    assert facts.cgroup_cpuset(proc, V2_MOUNT, files.get) == "0-3,8-11"
    # the service is unlimited, its slice is not: the slice's limit applies
    assert facts.cgroup_memory_max(proc, V2_MOUNT, files.get) == 536870912
    assert facts.cgroup_memory_max(proc, V2_MOUNT, {}.get) is None


def test_v1_unlimited_memory_is_no_limit() -> None:
    proc = "4:memory:/docker/abc\n"
    mounts = "33 31 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    files = {"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "9223372036854771712\n"}
    assert facts.cgroup_memory_max(proc, mounts, files.get) is None
    files["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "1073741824\n"
    assert facts.cgroup_memory_max(proc, mounts, files.get) == 1073741824


def test_cpus_effective_is_the_affinity_capped_by_the_quota() -> None:
    assert facts.cpus_effective(88, 1.0) == 1
    assert facts.cpus_effective(2, 1.5) == 2
    assert facts.cpus_effective(4, None) == 4
    assert facts.cpus_effective(None, 1.0) is None


def test_hello_facts_carry_the_new_keys_on_this_machine() -> None:
    found = facts.gather(tools=())
    for key in ("cgroup_cpuset", "cgroup_memory_max", "cpus_effective"):
        assert key in found
    assert found["cpus_effective"] is not None and 1 <= found["cpus_effective"] <= found["cpus_allowed"]


def _limited_group() -> tuple[Path, dict[str, str]]:
    """A fresh cgroup limited to one CPU (v1 cpu controller or v2 cpu.max; the tests run as root)."""
    name = f"perflab-test-{uuid.uuid4().hex[:8]}"
    v1 = Path("/sys/fs/cgroup/cpu")
    if (v1 / "cpu.cfs_quota_us").exists():
        return v1 / name, {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"}
    return Path("/sys/fs/cgroup") / name, {"cpu.max": "100000 100000"}


def test_a_real_one_cpu_cgroup_seen_by_the_agent_on_python36() -> None:
    group, limits = _limited_group()
    group.mkdir()
    try:
        for file, value in limits.items():
            (group / file).write_text(value)
        code = "import json; from perflab_agent import facts; print(json.dumps(facts.gather(tools=())))"
        out = subprocess.run(
            ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$0" -c "$1"', PY36, code],
            cwd=str(AGENTS), capture_output=True, text=True, check=True, timeout=30,
        ).stdout
    finally:
        group.rmdir()
    seen = json.loads(out)
    assert seen["cgroup_cpu_limit"] == 1.0
    assert seen["cpus_effective"] == 1
    assert seen["cpus_online"] >= 1
