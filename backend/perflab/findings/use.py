"""Brendan Gregg's USE method as a checklist per run: for each resource (CPU, memory, network, sockets and
conntrack, file descriptors, disk), its utilisation, saturation and errors: what this run's data says,
whether a rule found something there, and when nothing could be checked, which collector or file would
let the check run. Pure: reads the same ``RunData`` the rules read, and their findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perflab.findings.rules import Finding, RunData

RESOURCES = ("CPU", "memory", "network", "sockets and conntrack", "file descriptors", "disk")
TYPES = ("utilisation", "saturation", "errors")


def _mean(data: RunData, metric: str) -> float | None:
    found = data.series_mean("vmstat", metric)
    return found[1] if found else None


def _vmstat(*metrics: str) -> Callable[[RunData], str | None]:
    def read(data: RunData) -> str | None:
        values = [(m, _mean(data, m)) for m in metrics]
        if all(v is None for _, v in values):
            return None
        return ", ".join(f"{m} {v:.1f}" for m, v in values if v is not None) + " (vmstat steady-state mean)"

    return read


def _cpu_saturation(data: RunData) -> str | None:
    r = _mean(data, "r")
    if r is None:
        return None
    cpus = next((f.get("cpus_effective") or f.get("cpus_online") for f in data.facts.values() if f), None)
    return f"run queue {r:.1f}" + (f" on {cpus} CPUs" if cpus else "") + " (vmstat r)"


def _netstat_name(name: str) -> str:
    """nstat's TcpExtListenOverflows is netstat -s's TcpExt.ListenOverflows."""
    for group in ("TcpExt", "Tcp", "Ip", "Udp"):
        if name.startswith(group):
            return f"{group}.{name[len(group):]}"
    return name


def _counters(*names: str) -> Callable[[RunData], str | None]:
    def read(data: RunData) -> str | None:
        for kind, since in (("nstat", "this run"), ("netstat-s", "since boot")):
            for _, ns in data.all(kind):
                counters = ns.get("counters") or {}
                found = [(n, counters.get(n if kind == "nstat" else _netstat_name(n))) for n in names]
                if any(v is not None for _, v in found):
                    return ", ".join(f"{n} {int(v):,}" for n, v in found if v is not None) + f" ({kind}, {since})"
        return None

    return read


def _kinds(*kinds: str) -> Callable[[RunData], str | None]:
    def read(data: RunData) -> str | None:
        present = [k for k in kinds if data.all(k)]
        return f"read from {', '.join(present)}" if present else None

    return read


def _dmesg(*messages: str) -> Callable[[RunData], str | None]:
    def read(data: RunData) -> str | None:
        logs = data.all("dmesg")
        if not logs:
            return None
        counts = {m: sum(int(((d.get("messages") or {}).get(m) or {}).get("count") or 0) for _, d in logs)
                  for m in messages}
        return ", ".join(f"{m.replace('_', ' ')} {c}" for m, c in counts.items()) + " (kernel log)"

    return read


def _sockets(data: RunData) -> str | None:
    parts = []
    ss = data.first("ss-s")
    if ss is not None and ss[1].get("tcp"):
        tcp = ss[1]["tcp"]
        parts.append(f"estab {tcp.get('estab')}, timewait {tcp.get('timewait')} (ss -s)")
    count, cmax = data.sysctl_int("net.netfilter.nf_conntrack_count"), data.sysctl_int("net.netfilter.nf_conntrack_max")
    if count is not None and cmax:
        parts.append(f"conntrack {count:,} of {cmax:,}")
    return "; ".join(parts) or None


def _file_nr(data: RunData) -> str | None:
    value = data.sysctl.get("fs.file-nr")
    fields = value.split() if value else []
    if len(fields) == 3 and fields[0].isdigit() and fields[2].isdigit():
        return f"{int(fields[0]):,} of {int(fields[2]):,} descriptors allocated (fs.file-nr)"
    return None


def _fd_errors(data: RunData) -> str | None:
    found = []
    for _, st in data.all("strace"):
        errors: dict[str, int] = {}
        for row in (st.get("syscalls") or {}).values():
            for errno, n in (row.get("errors") or {}).items():
                if errno in ("EMFILE", "ENFILE"):
                    errors[errno] = errors.get(errno, 0) + int(n)
        found.append(", ".join(f"{k} {v}" for k, v in errors.items()) or "no EMFILE/ENFILE")
    return f"{'; '.join(found)} (strace)" if found else None


def _either(*reads: Callable[[RunData], str | None]) -> Callable[[RunData], str | None]:
    def read(data: RunData) -> str | None:
        return next((v for v in (r(data) for r in reads) if v is not None), None)

    return read


@dataclass(frozen=True)
class Check:
    resource: str
    type: str
    read: Callable[[RunData], str | None] | None  # None: the method has nothing to measure here
    rules: tuple[str, ...]
    hint: str


VMSTAT = "add `--collect vmstat` (or import `vmstat 1` output)"
DMESG = "add `--collect dmesg` (or import `dmesg -T` / `journalctl -k`)"
NSTAT = "add `--collect nstat` (or import `nstat -az` / `netstat -s`)"

CHECKS = (
    Check("CPU", "utilisation", _either(_vmstat("us", "sy"), _kinds("top", "pidstat-averages")), ("cpu-steal",), VMSTAT),
    Check("CPU", "saturation", _cpu_saturation,
          ("loadgen-saturated", "workers-above-quota", "workers-below-cpus", "copy-bound-proxy"), VMSTAT),
    Check("CPU", "errors", None, (), "CPUs report no errors a collector reads (machine checks show in dmesg)"),
    Check("memory", "utilisation", _vmstat("free", "cache"), (), VMSTAT),
    Check("memory", "saturation", _vmstat("si", "so"), (), VMSTAT + " to see swapping"),
    Check("memory", "errors", _dmesg("oom_kill", "tcp_mem"), (), DMESG + " to see OOM kills"),
    Check("network", "utilisation", _kinds("tsar", "nginx-access"), (),
          "add `--collect netqtop` (per-queue packets and bytes) or import `tsar --traffic` / `sar -n DEV`"),
    Check("network", "saturation", _counters("TcpRetransSegs", "TcpExtTCPTimeouts"), ("sendfile-nopush",),
          NSTAT + " to see retransmits"),
    Check("network", "errors", _either(_counters("TcpInErrs", "TcpExtTCPAbortOnData"), _dmesg("nic_reset")), (),
          NSTAT + " to see TCP errors"),
    Check("sockets and conntrack", "utilisation", _sockets, ("timewait-ports",),
          "add `--collect ss-s` and `--sysctl net.netfilter.nf_conntrack_count`"),
    Check("sockets and conntrack", "saturation",
          _either(_counters("TcpExtListenOverflows", "TcpExtListenDrops"), _kinds("ss-ltn", "ss-tan")),
          ("listen-overflow", "reuseport-stall"), "add `--collect ss-ltn` and `--collect nstat` to see listen queues"),
    Check("sockets and conntrack", "errors", _dmesg("conntrack_full", "syn_flood", "tw_bucket_overflow", "orphans"),
          ("conntrack-full", "errors"), DMESG + " to see conntrack and SYN drops"),
    Check("file descriptors", "utilisation", _file_nr, (), "add `--sysctl fs.file-nr`"),
    Check("file descriptors", "saturation", None, (), "descriptors do not queue: running out is an error"),
    Check("file descriptors", "errors", _fd_errors, (), "import an `strace -f` log of the server to see EMFILE"),
    Check("disk", "utilisation", _vmstat("bi", "bo"), (), VMSTAT),
    Check("disk", "saturation", _vmstat("wa", "b"), ("access-log-lock",), VMSTAT),
    Check("disk", "errors", None, (), "the kernel log's I/O errors are not classified yet: read the dmesg "
          "attachment, or import `smartctl -a`"),
)


def checklist(data: RunData, findings: list[Finding]) -> list[dict[str, Any]]:
    """One row per resource and type: ``status`` is "finding" (a rule fired here), "silent" (checked,
    nothing found), "missing" (no data: ``hint`` says what would let it run) or "n/a"."""
    fired = {f["rule"] for f in findings}
    rows: list[dict[str, Any]] = []
    for c in CHECKS:
        value = c.read(data) if c.read is not None else None
        hits = sorted(fired & set(c.rules))
        if c.read is None:
            status = "n/a"
        elif hits:
            status = "finding"
        elif value is None:
            status = "missing"
        else:
            status = "silent"
        rows.append({"resource": c.resource, "type": c.type, "status": status, "value": value,
                     "rules": list(c.rules), "fired": hits,
                     "hint": c.hint if status in ("missing", "n/a") else None})
    return rows
