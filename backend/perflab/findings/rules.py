"""The rules: each one a small pure function over a run's precomputed data, returning findings.

A rule reads only ``RunData`` (summaries, ``series.stats`` steady-state means, host facts, config
and sysctl snapshots): no database, no raw samples, so findings cost milliseconds per run and can be
recomputed whenever a rule changes. Thresholds are module constants, documented in ``RULES`` (the
generated ``README.md`` beside this file lists them).

A finding is a dict::

    {"rule": "copy-bound-proxy", "severity": "critical" | "warning" | "info",
     "experiment": "default", "run_id": "...", "title": "...",
     "evidence": [{"kind": "syscall" | "series" | "log" | "sysctl" | "counter" | "listener" | "config"
                            | "summary" | "process",
                   "label": "readv", "value": "31,776 calls, 22.0% of syscall time",
                   "ref": {...}}],        # where it is: {"syscall": "readv", "role": "proxy"}, a series
                                          # {"role", "source", "metric", "key"}, a log {"line", "text"}, ...
     "suggestion": {"component": "nginx", "knob": "proxy_buffers", "from": "8 4k (default)",
                    "to": "4 128k"} | null,
     "docs": "https://nginx.org/..."}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Finding = dict[str, Any]
Evidence = dict[str, Any]

SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}


@dataclass
class RunData:
    """Everything the rules may read about one run (built by the service from the database, or by tests)."""

    run_id: str
    experiment: str
    # (role, kind, parsed data) of every summary: wrk, strace-c, ss-s, ss-ltn, dmesg, sysctl, ...
    summaries: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    # {"role", "source", "metric", "key", "labels", "unit", "stats": {"mean", "max", ...}}
    series: list[dict[str, Any]] = field(default_factory=list)
    # sysctl name -> value as text ("32768 60999"), from sysctl summaries and snapshots
    sysctl: dict[str, str] = field(default_factory=dict)
    # (role, file name, text) of config snapshots (nginx.conf ...)
    configs: list[tuple[str, str, str]] = field(default_factory=list)
    # role -> host facts from the agent's hello (cpus_online, cgroup_cpu_limit, ...)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def all(self, kind: str) -> list[tuple[str, dict[str, Any]]]:
        return [(role, data) for role, k, data in self.summaries if k == kind]

    def first(self, *kinds: str) -> tuple[str, dict[str, Any]] | None:
        for kind in kinds:
            found = self.all(kind)
            if found:
                return found[0]
        return None

    def sysctl_int(self, name: str) -> int | None:
        value = self.sysctl.get(name)
        if value is None:
            return None
        parts = value.split()
        return int(parts[0]) if len(parts) == 1 and parts[0].lstrip("-").isdigit() else None

    def series_mean(self, source: str, metric: str) -> tuple[dict[str, Any], float] | None:
        """The series (first role that has it) and its steady-state mean."""
        for s in self.series:
            if s["source"] == source and s["metric"] == metric:
                mean = (s.get("stats") or {}).get("mean")
                if mean is not None:
                    return s, float(mean)
        return None

    def nginx(self) -> tuple[str, str, dict[tuple[str, str], str]] | None:
        """(role, file, directives) of the first nginx-like config snapshot."""
        from perflab.compare import configs  # pure text helpers, shared with the config diff

        for role, name, text in self.configs:
            if configs.looks_like_nginx(text):
                try:
                    return role, name, configs.nginx_directives(text)
                except configs.ConfigError:
                    continue  # stored before the nesting cap: no rule can read it

        return None


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    reads: str
    thresholds: str
    suggests: str
    false_positives: str
    docs: str
    check: Callable[[RunData], list[Finding]]


RULES: list[Rule] = []


def rule(**meta: str) -> Callable[[Callable[[RunData], list[Finding]]], Callable[[RunData], list[Finding]]]:
    def wrap(fn: Callable[[RunData], list[Finding]]) -> Callable[[RunData], list[Finding]]:
        RULES.append(Rule(check=fn, **meta))
        return fn

    return wrap


def _finding(data: RunData, rule_id: str, severity: str, title: str, evidence: list[Evidence],
             suggestion: dict[str, str] | None) -> Finding:
    docs = next(r.docs for r in RULES if r.id == rule_id)
    return {"rule": rule_id, "severity": severity, "experiment": data.experiment, "run_id": data.run_id,
            "title": title, "evidence": evidence, "suggestion": suggestion, "docs": docs}


def _n(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() or abs(x) >= 100 else f"{x:,.1f}"


def _series_evidence(s: dict[str, Any], mean: float, label: str) -> Evidence:
    stats = s.get("stats") or {}
    extra = f", max {_n(stats['max'])}" if stats.get("max") is not None else ""
    return {"kind": "series", "label": label, "value": f"steady-state mean {mean:.1f}{s.get('unit') or ''}{extra}",
            "ref": {"role": s["role"], "source": s["source"], "metric": s["metric"], "key": s["key"]}}


# -- errors --------------------------------------------------------------------------------------------

@rule(
    id="errors",
    title="Requests failed: the run is invalid",
    reads="wrk summary (non-2xx/3xx responses, socket errors connect/read/write/timeout, requests); "
          "nginx access log status classes when imported",
    thresholds="any error response or socket error; zero requests",
    suggests="nothing to turn: the run measures failures, not throughput; the title names the likely layer",
    false_positives="a load test that hits a 404 or 403 URL on purpose; wrk counts 3xx as success",
    docs="https://github.com/wg/wrk#command-line-options",
)
def errors(data: RunData) -> list[Finding]:
    found = data.first("wrk")
    if found is None:
        return []
    role, wrk = found
    requests = int(wrk.get("requests") or 0)
    non2xx = int(wrk.get("non_2xx_3xx") or 0)
    sock = {k: int(v or 0) for k, v in (wrk.get("socket_errors") or {}).items()}
    failed = non2xx + sum(sock.values())
    if requests > 0 and failed == 0:
        return []
    evidence: list[Evidence] = [{"kind": "summary", "label": "wrk requests", "value": _n(requests),
                                 "ref": {"summary": "wrk", "role": role, "field": "requests"}}]
    if non2xx:
        evidence.append({"kind": "summary", "label": "non-2xx/3xx responses", "value": _n(non2xx),
                         "ref": {"summary": "wrk", "role": role, "field": "non_2xx_3xx"}})
    for k, v in sock.items():
        if v:
            evidence.append({"kind": "summary", "label": f"socket errors: {k}", "value": _n(v),
                             "ref": {"summary": "wrk", "role": role, "field": f"socket_errors.{k}"}})
    access = data.first("nginx-access")
    if access is not None:
        classes = access[1].get("status") or {}
        for cls in ("4xx", "5xx"):
            if classes.get(cls):
                evidence.append({"kind": "summary", "label": f"nginx access log {cls}", "value": _n(classes[cls]),
                                 "ref": {"summary": "nginx-access", "role": access[0], "field": f"status.{cls}"}})
    if requests == 0:
        layer = "no request completed: the server never answered (or wrk could not connect)"
    elif sock.get("connect"):
        layer = "connections were refused or not accepted: listen backlog, local port range or conntrack"
    elif sock.get("timeout"):
        layer = "responses slower than wrk's timeout: the server or its upstream is overloaded"
    elif sock.get("read") or sock.get("write"):
        layer = "connections were reset mid-request: a proxy or server closing keep-alive connections"
    else:
        five = (access[1].get("status") or {}).get("5xx") if access else None
        layer = ("the proxy answered 5xx: its upstream failed" if five else
                 "the server answered with errors (non-2xx): check the URL and the upstream")
    pct = 100.0 * failed / requests if requests else 100.0
    title = (f"{_n(failed)} of {_n(requests)} requests failed ({pct:.1f}%): the run is invalid; {layer}"
             if requests else f"wrk completed no request: the run is invalid; {layer}")
    return [_finding(data, "errors", "critical", title, evidence, None)]


# -- copy-bound proxy ----------------------------------------------------------------------------------

COPY_SHARE_PCT = 60.0
COPY_CALLS_PER_REQUEST = 4.0
COPY_MIN_SY_PCT = 30.0


def _kib(nbytes: float) -> int:
    return int(max(8, min(1024, 2 ** math.ceil(math.log2(max(nbytes, 1) / 1024)))))


@rule(
    id="copy-bound-proxy",
    title="The proxy copies responses through small buffers",
    reads="strace -c table of the proxy (readv/writev or read/write, recvfrom as requests read from "
          "clients), vmstat sy steady-state mean, wrk bytes per response, the nginx.conf snapshot",
    thresholds=f"readv+writev (or read+write) >= {COPY_SHARE_PCT:.0f}% of syscall time, and >= "
               f"{COPY_CALLS_PER_REQUEST:.0f} of those calls per recvfrom; silent when vmstat sy < "
               f"{COPY_MIN_SY_PCT:.0f}%",
    suggests="nginx proxy_buffers: 4 buffers of the response size rounded up to a power of two "
             "(proxy_buffer_size covers headers only)",
    false_positives="a file server without sendfile (read/write, no proxy_pass); streaming responses "
                    "larger than any sensible buffer",
    docs="https://nginx.org/en/docs/http/ngx_http_proxy_module.html#proxy_buffers",
)
def copy_bound_proxy(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    proxying = nginx is not None and any(k[1] == "proxy_pass" for k in nginx[2])
    out: list[Finding] = []
    for role, table in data.all("strace-c"):
        rows = {r.get("syscall"): r for r in table.get("syscalls") or []}
        pairs = [p for p in (("readv", "writev"), ("read", "write")) if p[0] in rows]
        if not pairs:
            continue
        if pairs[0] == ("read", "write") and not proxying:
            continue  # read/write alone is any server; readv is how nginx reads upstream buffers
        pair = max(pairs, key=lambda p: sum(float(rows.get(s, {}).get("pct_time") or 0) for s in p))
        share = sum(float(rows.get(s, {}).get("pct_time") or 0) for s in pair)
        calls = sum(int(rows.get(s, {}).get("calls") or 0) for s in pair)
        requests = int(rows.get("recvfrom", {}).get("calls") or 0)
        if share < COPY_SHARE_PCT or requests == 0 or calls / requests < COPY_CALLS_PER_REQUEST:
            continue
        sy = data.series_mean("vmstat", "sy")
        if sy is not None and sy[1] < COPY_MIN_SY_PCT:
            continue
        evidence: list[Evidence] = []
        for s in pair:
            r = rows.get(s)
            if r:
                evidence.append({"kind": "syscall", "label": s,
                                 "value": f"{_n(r.get('calls') or 0)} calls, {r.get('pct_time')}% of syscall time",
                                 "ref": {"syscall": s, "role": role}})
        evidence.append({"kind": "syscall", "label": f"{pair[0]}+{pair[1]} per request",
                         "value": f"{calls / requests:.1f} calls per recvfrom ({_n(requests)} recvfrom)",
                         "ref": {"syscall": "recvfrom", "role": role}})
        if sy is not None:
            evidence.append(_series_evidence(sy[0], sy[1], "system CPU (vmstat sy)"))
        current = "8 4k (default)"
        if nginx is not None:
            vals = [v for k, v in nginx[2].items() if k[1] == "proxy_buffers"]
            if vals:
                current = vals[0]
                evidence.append({"kind": "config", "label": "proxy_buffers", "value": current,
                                 "ref": {"file": nginx[1], "role": nginx[0], "directive": "proxy_buffers"}})
        wrk = data.first("wrk")
        size = 128
        if wrk is not None and wrk[1].get("requests") and wrk[1].get("bytes_read"):
            per = float(wrk[1]["bytes_read"]) / float(wrk[1]["requests"])
            size = _kib(per)
            evidence.append({"kind": "summary", "label": "bytes per response (wrk)", "value": f"{per / 1024:,.1f} KiB",
                             "ref": {"summary": "wrk", "role": wrk[0], "field": "bytes_read"}})
        sy_text = f"sy is {sy[1]:.0f}% and " if sy is not None else ""
        title = (f"{sy_text}{pair[0]}/{pair[1]} take {share:.0f}% of syscall time at {calls / requests:.0f} calls per "
                 f"request: nginx copies responses through small proxy buffers")
        out.append(_finding(data, "copy-bound-proxy", "warning", title, evidence,
                            {"component": "nginx", "knob": "proxy_buffers", "from": current, "to": f"4 {size}k"}))
        break
    return out


# -- conntrack -----------------------------------------------------------------------------------------

CONNTRACK_FULL_RATIO = 0.9


@rule(
    id="conntrack-full",
    title="The conntrack table is full: new connections are dropped",
    reads="dmesg/journalctl -k (`nf_conntrack: table full, dropping packet`); sysctl "
          "net.netfilter.nf_conntrack_count and nf_conntrack_max",
    thresholds=f"any `table full` message; or nf_conntrack_count >= {CONNTRACK_FULL_RATIO:.0%} of nf_conntrack_max",
    suggests="net.netfilter.nf_conntrack_max: 4x the current value, at least 262144",
    false_positives="a message from before the run when the whole kernel log was pasted (check first/last time)",
    docs="https://www.kernel.org/doc/html/latest/networking/nf_conntrack-sysctl.html",
)
def conntrack_full(data: RunData) -> list[Finding]:
    evidence: list[Evidence] = []
    for role, dm in data.all("dmesg"):
        msg = (dm.get("messages") or {}).get("conntrack_full")
        if msg:
            evidence.append({"kind": "log", "label": f"kernel log ({role})",
                             "value": f"{_n(msg['count'])} x '{msg['sample']}' ({msg.get('first')} .. {msg.get('last')})",
                             "ref": {"summary": "dmesg", "role": role, "line": msg.get("first_line"),
                                     "text": msg["sample"]}})
    count = data.sysctl_int("net.netfilter.nf_conntrack_count")
    cmax = data.sysctl_int("net.netfilter.nf_conntrack_max") or data.sysctl_int("net.nf_conntrack_max")
    if count is not None and cmax and count >= CONNTRACK_FULL_RATIO * cmax:
        evidence.append({"kind": "sysctl", "label": "net.netfilter.nf_conntrack_count", "value": _n(count),
                         "ref": {"sysctl": "net.netfilter.nf_conntrack_count"}})
    if not evidence:
        return []
    if cmax:
        evidence.append({"kind": "sysctl", "label": "net.netfilter.nf_conntrack_max", "value": _n(cmax),
                         "ref": {"sysctl": "net.netfilter.nf_conntrack_max"}})
    to = max(4 * cmax, 262144) if cmax else 262144
    title = ("dmesg says `nf_conntrack: table full`" if any(e["kind"] == "log" for e in evidence)
             else f"nf_conntrack_count {_n(count or 0)} is at the limit")
    title += f", and nf_conntrack_max is {_n(cmax)}" if cmax else ": raise nf_conntrack_max"
    return [_finding(data, "conntrack-full", "critical", title, evidence,
                     {"component": "kernel", "knob": "net.netfilter.nf_conntrack_max",
                      "from": str(cmax) if cmax else "(unknown)", "to": str(to)})]


# -- listen queue ----------------------------------------------------------------------------------------

SOMAXCONN_TO = 4096


@rule(
    id="listen-overflow",
    title="The listen queue overflows: SYNs are dropped",
    reads="ss -ltn (Recv-Q at Send-Q on a listener), netstat -s / nstat (ListenOverflows, ListenDrops; the "
          "agent's nstat collector counts during the run only), "
          "dmesg (`Possible SYN flooding on port`), sysctl net.core.somaxconn",
    thresholds="a listener with Recv-Q >= Send-Q; any listen queue overflow counted; any SYN flooding message",
    suggests="net.core.somaxconn to 4096 when the queue is capped by it, else the application's listen "
             "backlog (nginx `listen ... backlog=N`)",
    false_positives="netstat -s counters are totals since boot: overflows before the run count too",
    docs="https://man7.org/linux/man-pages/man2/listen.2.html",
)
def listen_overflow(data: RunData) -> list[Finding]:
    evidence: list[Evidence] = []
    backlog: int | None = None
    for kind in ("ss-ltn", "ss-tan"):
        for role, ss in data.all(kind):
            for lst in ss.get("listeners") or []:
                if lst.get("full"):
                    backlog = lst.get("send_q") if backlog is None else backlog
                    proc = f" ({lst['process']})" if lst.get("process") else ""
                    evidence.append({"kind": "listener", "label": f"{lst['local']}{proc}",
                                     "value": f"Recv-Q {lst['recv_q']} at Send-Q {lst['send_q']}",
                                     "ref": {"summary": kind, "role": role, "local": lst["local"]}})
    overflows = 0
    # The same kernel counters, as netstat -s names them (since boot) and as nstat does (this run only).
    for kind, names, when in (("netstat-s", ("TcpExt.ListenOverflows", "TcpExt.ListenDrops"), "since boot"),
                              ("nstat", ("TcpExtListenOverflows", "TcpExtListenDrops"), "nstat")):
        for role, ns in data.all(kind):
            counters = ns.get("counters") or {}
            for name in names:
                v = counters.get(name)
                if v:
                    overflows = max(overflows, int(v))
                    evidence.append({"kind": "counter", "label": f"{name} ({when})", "value": _n(v),
                                     "ref": {"summary": kind, "role": role, "counter": name}})
    for role, dm in data.all("dmesg"):
        msg = (dm.get("messages") or {}).get("syn_flood")
        if msg:
            evidence.append({"kind": "log", "label": f"kernel log ({role})",
                             "value": f"{_n(msg['count'])} x '{msg['sample']}'",
                             "ref": {"summary": "dmesg", "role": role, "line": msg.get("first_line"),
                                     "text": msg["sample"]}})
    if not evidence:
        return []
    somaxconn = data.sysctl_int("net.core.somaxconn")
    if somaxconn is not None:
        evidence.append({"kind": "sysctl", "label": "net.core.somaxconn", "value": str(somaxconn),
                         "ref": {"sysctl": "net.core.somaxconn"}})
    if somaxconn is not None and (backlog is None or backlog >= somaxconn) and somaxconn < SOMAXCONN_TO:
        suggestion = {"component": "kernel", "knob": "net.core.somaxconn", "from": str(somaxconn),
                      "to": str(SOMAXCONN_TO)}
    elif backlog is not None:
        cap = somaxconn if somaxconn is not None else SOMAXCONN_TO
        suggestion = {"component": "nginx", "knob": "listen backlog", "from": str(backlog),
                      "to": str(max(cap, backlog * 4) if cap > backlog else backlog * 4)}
    else:
        suggestion = {"component": "kernel", "knob": "net.core.somaxconn", "from": "(unknown)",
                      "to": str(SOMAXCONN_TO)}
    if overflows:
        title = f"The listen queue overflowed {_n(overflows)} times"
    elif backlog is not None:
        title = f"A listener's accept queue is full (Send-Q {backlog})"
    else:
        title = "The kernel reports SYN flooding on a listening port"
    if somaxconn is not None:
        title += f" and somaxconn is {somaxconn}"
    return [_finding(data, "listen-overflow", "warning", title, evidence, suggestion)]


# -- TIME_WAIT and ephemeral ports -----------------------------------------------------------------------

TW_PORT_RATIO = 0.5
TW_BUCKET_RATIO = 0.9
TW_REUSE_MIN = 10000
ESTAB_RATIO = 0.5


@rule(
    id="timewait-ports",
    title="TIME_WAIT sockets exhaust the local ports",
    reads="ss -s (timewait, estab) or ss -tan state counts, wrk connections, sysctl "
          "net.ipv4.ip_local_port_range / tcp_tw_reuse / tcp_max_tw_buckets, dmesg (`time wait bucket table overflow`)",
    thresholds=f"TIME_WAIT >= {TW_PORT_RATIO:.0%} of the local port range; a port range smaller than wrk's "
               f"connections; established < {ESTAB_RATIO:.0%} of wrk's connections with TIME_WAIT above them; "
               f"TIME_WAIT >= {TW_BUCKET_RATIO:.0%} of tcp_max_tw_buckets or a bucket overflow message; "
               f">= {TW_REUSE_MIN} TIME_WAIT with tcp_tw_reuse=0",
    suggests="net.ipv4.ip_local_port_range to `1024 65535` when the range is small; tcp_tw_reuse 0 -> 1 "
             "(connections this host opens); tcp_max_tw_buckets doubled after overflows",
    false_positives="ss -s on the server side counts TIME_WAIT of connections the server closed, which "
                    "do not use its ephemeral ports",
    docs="https://www.kernel.org/doc/html/latest/networking/ip-sysctl.html",
)
def timewait_ports(data: RunData) -> list[Finding]:
    tw = estab = None
    src: tuple[str, str] | None = None
    found = data.first("ss-s")
    if found is not None and found[1].get("tcp"):
        tw, estab, src = found[1]["tcp"].get("timewait"), found[1]["tcp"].get("estab"), ("ss-s", found[0])
    else:
        found = data.first("ss-tan")
        if found is not None:
            states = found[1].get("states") or {}
            tw, estab, src = states.get("TIME-WAIT", 0), states.get("ESTAB", 0), ("ss-tan", found[0])
    rng = data.sysctl.get("net.ipv4.ip_local_port_range")
    ports = None
    if rng and len(rng.split()) == 2 and all(p.isdigit() for p in rng.split()):
        lo, hi = (int(p) for p in rng.split())
        ports = hi - lo + 1
    reuse = data.sysctl_int("net.ipv4.tcp_tw_reuse")
    buckets = data.sysctl_int("net.ipv4.tcp_max_tw_buckets")
    wrk = data.first("wrk")
    conns = int(wrk[1].get("connections") or 0) if wrk else 0
    overflow: list[tuple[str, dict[str, Any]]] = []
    for role, dm in data.all("dmesg"):
        msg = (dm.get("messages") or {}).get("tw_bucket_overflow")
        if msg:
            overflow.append((role, msg))
    reasons: list[str] = []
    if tw is not None and ports and tw >= TW_PORT_RATIO * ports:
        reasons.append("ports")
    if ports and conns and ports < conns:
        reasons.append("range")
    if tw is not None and estab is not None and conns and estab < ESTAB_RATIO * conns and tw > conns:
        reasons.append("estab")
    if overflow or (tw is not None and buckets and tw >= TW_BUCKET_RATIO * buckets):
        reasons.append("buckets")
    if tw is not None and tw >= TW_REUSE_MIN and reuse == 0:
        reasons.append("reuse")
    if not reasons:
        return []
    evidence: list[Evidence] = []
    if tw is not None and src is not None:
        evidence.append({"kind": "summary", "label": "sockets in TIME_WAIT", "value": _n(tw),
                         "ref": {"summary": src[0], "role": src[1], "field": "timewait"}})
    if estab is not None and src is not None and conns:
        evidence.append({"kind": "summary", "label": "established / wrk connections",
                         "value": f"{_n(estab)} of {_n(conns)}",
                         "ref": {"summary": src[0], "role": src[1], "field": "estab"}})
    for name, value in (("net.ipv4.ip_local_port_range", rng), ("net.ipv4.tcp_tw_reuse", reuse),
                        ("net.ipv4.tcp_max_tw_buckets", buckets)):
        if value is not None:
            evidence.append({"kind": "sysctl", "label": name,
                             "value": f"{value} ({_n(ports)} ports)" if name.endswith("range") and ports else str(value),
                             "ref": {"sysctl": name}})
    for role, msg in overflow:
        evidence.append({"kind": "log", "label": f"kernel log ({role})", "value": f"{_n(msg['count'])} x '{msg['sample']}'",
                         "ref": {"summary": "dmesg", "role": role, "line": msg.get("first_line"), "text": msg["sample"]}})
    if ports is not None and ("range" in reasons or ("ports" in reasons and ports < 10000)):
        suggestion = {"component": "kernel", "knob": "net.ipv4.ip_local_port_range", "from": str(rng), "to": "1024 65535"}
    elif reuse == 0 and ("reuse" in reasons or "ports" in reasons or "estab" in reasons):
        suggestion = {"component": "kernel", "knob": "net.ipv4.tcp_tw_reuse", "from": "0", "to": "1"}
    elif "buckets" in reasons:
        suggestion = {"component": "kernel", "knob": "net.ipv4.tcp_max_tw_buckets",
                      "from": str(buckets) if buckets else "(unknown)", "to": str(max(2 * (buckets or 0), 262144))}
    elif ports is not None:
        suggestion = {"component": "kernel", "knob": "net.ipv4.ip_local_port_range", "from": str(rng), "to": "1024 65535"}
    else:
        suggestion = None
    parts = []
    if "estab" in reasons and estab is not None:
        parts.append(f"only {_n(estab)} of {_n(conns)} connections are established")
    if tw is not None:
        parts.append(f"{_n(tw)} sockets sit in TIME_WAIT")
    if ports is not None:
        parts.append(f"the local port range holds {_n(ports)} ports")
    if reuse is not None and suggestion and suggestion["knob"].endswith("tw_reuse"):
        parts.append(f"tcp_tw_reuse is {reuse}")
    if overflow:
        parts.append("the TIME_WAIT bucket table overflowed")
    title = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return [_finding(data, "timewait-ports", "warning", title[:1].upper() + title[1:], evidence, suggestion)]


# -- load generator ----------------------------------------------------------------------------------------

LOADGEN_BUSY_PCT = 90.0
LOADGEN_IDLE_PCT = 5.0


@rule(
    id="loadgen-saturated",
    title="The load generator is saturated: results are a bound, not a measurement",
    reads="top -b (-H) of the load generator (wrk's CPU, the host's idle CPU after the first iteration) "
          "or pidstat averages of wrk, wrk's thread count",
    thresholds=f"wrk's CPU >= {LOADGEN_BUSY_PCT:.0f}% of one CPU per wrk thread; or the host running wrk "
               f"idle < {LOADGEN_IDLE_PCT:.0f}% while it ran",
    suggests="nothing to turn on the server: more wrk threads, a lighter wrk Lua script, or a load "
             "generator of its own",
    false_positives="a load generator deliberately sharing its host with the server (loopback tests): "
                    "the finding is then right but expected",
    docs="https://github.com/wg/wrk",
)
def loadgen_saturated(data: RunData) -> list[Finding]:
    wrk = data.first("wrk")
    threads = int(wrk[1].get("threads") or 1) if wrk else 1
    for role, top in data.all("top"):
        cmd = (top.get("commands") or {}).get("wrk")
        if cmd is None and role != "loadgen":
            continue
        its = top.get("iterations") or []
        # top's first iteration covers the moment since the process started: not the run
        later = its[1:] if len(its) > 1 else its
        idle = [float(it["cpu"]["id"]) for it in later if it.get("cpu") and it["cpu"].get("id") is not None]
        busy = float(cmd["cpu_pct_mean"]) if cmd else 0.0
        ev: list[Evidence] = []
        if cmd and busy >= LOADGEN_BUSY_PCT * threads:
            ev.append({"kind": "process", "label": f"wrk CPU (top, {role})", "value": f"{busy:.0f}% for {threads} threads",
                       "ref": {"summary": "top", "role": role, "command": "wrk"}})
        if idle and sum(idle) / len(idle) < LOADGEN_IDLE_PCT:
            ev.append({"kind": "summary", "label": f"host CPU idle (top %Cpu(s) id, {role})",
                       "value": f"{sum(idle) / len(idle):.1f}% over {len(idle)} refreshes",
                       "ref": {"summary": "top", "role": role, "field": "iterations.cpu.id"}})
            if cmd:
                ev.append({"kind": "process", "label": f"wrk CPU (top, {role})",
                           "value": f"{busy:.0f}% for {threads} threads", "ref": {"summary": "top", "role": role,
                                                                                 "command": "wrk"}})
        if ev:
            what = (f"wrk used {busy:.0f}% CPU with {threads} threads" if busy >= LOADGEN_BUSY_PCT * threads
                    else f"the host running wrk had {sum(idle) / len(idle):.0f}% idle CPU")
            return [_finding(data, "loadgen-saturated", "warning",
                             f"{what[:1].upper()}{what[1:]}: the load generator is saturated, so the result is a lower "
                             "bound of what the server can do", ev, None)]
    for role, pa in data.all("pidstat-averages"):
        total = sum(float(a.get("cpu_pct") or 0) for a in pa.get("averages") or []
                    if a.get("command") == "wrk" and not a.get("tid"))
        if total >= LOADGEN_BUSY_PCT * threads:
            ev = [{"kind": "process", "label": f"wrk CPU (pidstat, {role})", "value": f"{total:.0f}% for {threads} threads",
                   "ref": {"summary": "pidstat-averages", "role": role, "command": "wrk"}}]
            return [_finding(data, "loadgen-saturated", "warning",
                             f"wrk used {total:.0f}% CPU with {threads} threads: the load generator is saturated, "
                             "so the result is a lower bound of what the server can do", ev, None)]
    return []


# -- steal -------------------------------------------------------------------------------------------------

STEAL_INFO_PCT = 5.0
STEAL_WARN_PCT = 20.0


@rule(
    id="cpu-steal",
    title="The hypervisor steals CPU time",
    reads="vmstat st steady-state mean",
    thresholds=f"mean st >= {STEAL_INFO_PCT:.0f}% (info), >= {STEAL_WARN_PCT:.0f}% (warning)",
    suggests="nothing in the system under test: repeat the run, or use dedicated CPUs",
    false_positives="short runs where one noisy second dominates the mean",
    docs="https://man7.org/linux/man-pages/man8/vmstat.8.html",
)
def cpu_steal(data: RunData) -> list[Finding]:
    out = []
    for s in data.series:
        if s["source"] != "vmstat" or s["metric"] != "st":
            continue
        mean = (s.get("stats") or {}).get("mean")
        if mean is None or mean < STEAL_INFO_PCT:
            continue
        sev = "warning" if mean >= STEAL_WARN_PCT else "info"
        out.append(_finding(data, "cpu-steal", sev,
                            f"{s['role']}: the hypervisor stole {mean:.0f}% of CPU time: this run is noisier than others",
                            [_series_evidence(s, float(mean), "steal (vmstat st)")], None))
    return out


# -- worker_processes vs the cgroup's CPUs --------------------------------------------------------------------


@rule(
    id="workers-above-quota",
    title="nginx starts more workers than the container's CPUs",
    reads="nginx.conf snapshot (worker_processes), host facts (cgroup_cpu_limit, cpus_allowed, cpus_online)",
    thresholds="worker_processes (auto = the host's CPUs) above the cgroup CPU limit rounded up",
    suggests="nginx worker_processes: the cgroup CPU limit rounded up",
    false_positives="nginx built with cgroup-aware CPU detection; workers mostly idle on I/O",
    docs="https://nginx.org/en/docs/ngx_core_module.html#worker_processes",
)
def workers_above_quota(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    if nginx is None:
        return []
    role, name, directives = nginx
    value = next((v for k, v in directives.items() if k[1] == "worker_processes"), "1")
    facts = data.facts.get(role) or next(iter(data.facts.values()), None)
    if not facts:
        return []
    limit = facts.get("cgroup_cpu_limit")
    allowed = facts.get("cpus_allowed")
    cap = math.ceil(float(limit)) if limit else (int(allowed) if allowed else None)
    if cap is None:
        return []
    workers = int(facts.get("cpus_online") or 0) if value.strip() == "auto" else (
        int(value) if value.strip().isdigit() else 0)
    if workers <= cap:
        return []
    ev = [{"kind": "config", "label": "worker_processes", "value": value,
           "ref": {"file": name, "role": role, "directive": "worker_processes"}},
          {"kind": "summary", "label": "CPUs the process may use",
           "value": f"cgroup limit {limit}, cpus allowed {allowed}, host CPUs {facts.get('cpus_online')}",
           "ref": {"facts": role}}]
    return [_finding(data, "workers-above-quota", "warning",
                     f"worker_processes {value} starts {workers} workers but the cgroup allows {cap} CPU(s)",
                     ev, {"component": "nginx", "knob": "worker_processes", "from": value, "to": str(cap)})]


def evaluate(data: RunData) -> list[Finding]:
    """Every rule's findings for one run, most severe first."""
    out: list[Finding] = []
    for r in RULES:
        out.extend(r.check(data))
    out.sort(key=lambda f: SEVERITY_ORDER[f["severity"]])
    return out
