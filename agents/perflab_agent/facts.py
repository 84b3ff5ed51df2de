"""Host facts sent with hello: what the run page shows beside each host, and what often explains a result
(nginx's `worker_processes auto` starting 88 workers in a 1-CPU container reads the host's CPU count)."""

import glob
import os
import platform
import re
import subprocess

from perflab_agent.util import tool_env

# Commands printing a tool's version on their first line (wrk prints it and exits 1).
VERSION_COMMANDS = {
    "vmstat": ["vmstat", "-V"],
    "pidstat": ["pidstat", "-V"],
    "strace": ["strace", "-V"],
    "perf": ["perf", "--version"],
    "wrk": ["wrk", "-v"],
}


def read_text(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def parse_cpu_list(text):
    """'0-3,8-11' -> 8 (the format of /sys/devices/system/cpu/online and cpuset files)."""
    count = 0
    for part in (text or "").strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        try:
            count += int(high or low) - int(low) + 1
        except ValueError:
            return None
    return count or None


def cpu_model(cpuinfo):
    for key in ("model name", "Model", "Hardware", "cpu model", "Processor"):
        m = re.search(rf"^{re.escape(key)}\s*:\s*(.+)$", cpuinfo or "", re.MULTILINE)
        if m:
            return m.group(1).strip()
    return platform.processor() or None


def mem_total_kb(meminfo):
    m = re.search(r"^MemTotal:\s+(\d+)\s+kB", meminfo or "", re.MULTILINE)
    return int(m.group(1)) if m else None


def distro(os_release):
    values = {}
    for line in (os_release or "").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip("\"'")
    return values.get("PRETTY_NAME") or " ".join(filter(None, [values.get("NAME"), values.get("VERSION_ID")])) or None


def nic_queues(root="/sys/class/net"):
    """{"eth0": {"rx": 4, "tx": 4}}: queue counts decide how far interrupt load can spread."""
    result = {}
    for path in sorted(glob.glob(os.path.join(root, "*", "queues"))):
        names = os.listdir(path)
        result[os.path.basename(os.path.dirname(path))] = {
            "rx": sum(1 for n in names if n.startswith("rx-")),
            "tx": sum(1 for n in names if n.startswith("tx-")),
        }
    return result


def _unescape(field):
    # mountinfo writes space, tab, newline and backslash in paths as octal escapes (\040).
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text):
    """(root, mount point, filesystem type, super options) of each line of /proc/PID/mountinfo."""
    mounts = []
    for line in (text or "").splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or not tail:
            continue
        mounts.append((_unescape(fields[3]), _unescape(fields[4]), tail[0], tail[2] if len(tail) > 2 else ""))
    return mounts


def _cgroup_dirs(mount_root, mount_point, cgroup_path):
    """The cgroup's directory and its ancestors up to the mount point: a parent's limit applies too."""
    if mount_root != "/" and (cgroup_path + "/").startswith(mount_root.rstrip("/") + "/"):
        relative = cgroup_path[len(mount_root.rstrip("/")):]
    else:
        relative = cgroup_path
    parts = [p for p in relative.split("/") if p and p not in (".", "..")]
    return [os.path.join(mount_point, *parts[:depth]) for depth in range(len(parts), -1, -1)]


def _v2_limit(text):
    fields = (text or "").split()
    if len(fields) == 2 and fields[0] != "max":
        try:
            return int(fields[0]) / float(int(fields[1]))
        except (ValueError, ZeroDivisionError):
            return None
    return None


def _v1_limit(quota_text, period_text):
    try:
        quota, period = int((quota_text or "").strip()), int((period_text or "").strip())
    except ValueError:
        return None
    return quota / float(period) if quota > 0 and period > 0 else None


def cgroup_cpu_limit(proc_cgroup, mountinfo, read=read_text):
    """The CPU limit (in CPUs, e.g. 1.5) the agent's cgroup imposes, v1 or v2; None when unlimited.

    Found the way the kernel applies it: our cgroup from /proc/self/cgroup, where that hierarchy is
    mounted from /proc/self/mountinfo, then cpu.max (v2) or cpu.cfs_quota_us / cpu.cfs_period_us (v1)
    in our cgroup and every ancestor; the smallest wins. `read(path)` returns a file's text or None.
    """
    mounts = parse_mountinfo(mountinfo)
    limits = []
    for line in (proc_cgroup or "").splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        hierarchy, controllers, path = fields
        if hierarchy == "0" and controllers == "":
            for root, point, fstype, _ in mounts:
                if fstype == "cgroup2":
                    for directory in _cgroup_dirs(root, point, path):
                        limits.append(_v2_limit(read(os.path.join(directory, "cpu.max"))))
        elif "cpu" in controllers.split(","):
            for root, point, fstype, options in mounts:
                if fstype == "cgroup" and "cpu" in options.split(","):
                    for directory in _cgroup_dirs(root, point, path):
                        limits.append(_v1_limit(read(os.path.join(directory, "cpu.cfs_quota_us")),
                                                read(os.path.join(directory, "cpu.cfs_period_us"))))
    limits = [limit for limit in limits if limit is not None]
    return round(min(limits), 3) if limits else None


def _cgroup_files(proc_cgroup, mountinfo, read, v2_name, controller, v1_name):
    """Texts of a cgroup file in our cgroup and each ancestor (v2 file in the unified hierarchy, else the
    v1 file of `controller`), nearest first; missing files are left out."""
    mounts = parse_mountinfo(mountinfo)
    texts = []
    for line in (proc_cgroup or "").splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        hierarchy, controllers, path = fields
        if hierarchy == "0" and controllers == "":
            wanted, name = "cgroup2", v2_name
        elif controller in controllers.split(","):
            wanted, name = "cgroup", v1_name
        else:
            continue
        for root, point, fstype, options in mounts:
            if fstype != wanted or (wanted == "cgroup" and controller not in options.split(",")):
                continue
            for directory in _cgroup_dirs(root, point, path):
                text = read(os.path.join(directory, name))
                if text is not None and text.strip():
                    texts.append(text.strip())
    return texts


# v1 writes "no limit" as the largest page-aligned 64-bit value
_V1_UNLIMITED = 1 << 62


def cgroup_memory_max(proc_cgroup, mountinfo, read=read_text):
    """The memory limit in bytes (memory.max, v1 memory.limit_in_bytes), smallest up the tree; None when unlimited."""
    limits = []
    for text in (_cgroup_files(proc_cgroup, mountinfo, read, "memory.max", "memory", "memory.limit_in_bytes")):
        if text.isdigit() and int(text) < _V1_UNLIMITED:
            limits.append(int(text))
    return min(limits) if limits else None


def cgroup_cpuset(proc_cgroup, mountinfo, read=read_text):
    """The CPUs the cgroup may run on ("0-3,8-11", from cpuset.cpus.effective, v1 cpuset.effective_cpus)."""
    texts = _cgroup_files(proc_cgroup, mountinfo, read, "cpuset.cpus.effective", "cpuset", "cpuset.effective_cpus")
    return texts[0] if texts else None


def cpus_effective(cpus_allowed, cpu_limit):
    """How many CPUs a process here can really keep busy: its affinity mask, capped by the CPU quota rounded up.
    `nproc` in a container prints the first; nginx's `worker_processes auto` reads the host's online CPUs."""
    if cpus_allowed is None:
        return None
    if cpu_limit is None:
        return cpus_allowed
    return max(1, min(cpus_allowed, int(-(-cpu_limit // 1))))


def cgroup_version(mountinfo):
    types = {fstype for _, point, fstype, _ in parse_mountinfo(mountinfo) if point.startswith("/sys/fs/cgroup")}
    if "cgroup" in types:
        return 1
    return 2 if "cgroup2" in types else None


def tool_version(name):
    argv = VERSION_COMMANDS.get(name)
    if not argv:
        return None
    try:
        # universal_newlines, not text=: Python 3.6.
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=tool_env(), timeout=5, check=False, universal_newlines=True).stdout  # noqa: UP021
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.strip().splitlines()[0] if out.strip() else ""
    return first[:200] or None


def gather(tools=("vmstat", "pidstat", "strace", "perf", "wrk")):
    """Everything the hello message carries under "facts"."""
    mountinfo = read_text("/proc/self/mountinfo")
    proc_cgroup = read_text("/proc/self/cgroup")
    versions = {}
    for name in tools:
        version = tool_version(name)
        if version:
            versions[name] = version
    try:
        cpus_allowed = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus_allowed = None
    return {
        "kernel": platform.release(),
        "arch": platform.machine(),
        "distro": distro(read_text("/etc/os-release") or read_text("/usr/lib/os-release")),
        "cpu_model": cpu_model(read_text("/proc/cpuinfo")),
        "cpus_online": parse_cpu_list(read_text("/sys/devices/system/cpu/online")) or os.cpu_count(),
        "cpus_allowed": cpus_allowed,
        "cgroup_version": cgroup_version(mountinfo),
        "cgroup_cpu_limit": cgroup_cpu_limit(proc_cgroup, mountinfo),
        "cgroup_cpuset": cgroup_cpuset(proc_cgroup, mountinfo),
        "cgroup_memory_max": cgroup_memory_max(proc_cgroup, mountinfo),
        "cpus_effective": cpus_effective(cpus_allowed, cgroup_cpu_limit(proc_cgroup, mountinfo)),
        "mem_total_kb": mem_total_kb(read_text("/proc/meminfo")),
        "machine_id": (read_text("/etc/machine-id") or "").strip() or None,
        "boot_id": (read_text("/proc/sys/kernel/random/boot_id") or "").strip() or None,
        "nic_queues": nic_queues(),
        "tool_versions": versions,
        "python": platform.python_version(),
    }
