"""The kernel's socket tables: conntrack, listen queues, TIME_WAIT and local ports."""

from __future__ import annotations

from typing import Any

from perflab.findings.rules.base import Evidence, Finding, RunData, make_finding, num, rule

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
                             "value": f"{num(msg['count'])} x '{msg['sample']}' ({msg.get('first')} .. {msg.get('last')})",
                             "ref": {"summary": "dmesg", "role": role, "line": msg.get("first_line"),
                                     "text": msg["sample"]}})
    count = data.sysctl_int("net.netfilter.nf_conntrack_count")
    cmax = data.sysctl_int("net.netfilter.nf_conntrack_max") or data.sysctl_int("net.nf_conntrack_max")
    if count is not None and cmax and count >= CONNTRACK_FULL_RATIO * cmax:
        evidence.append({"kind": "sysctl", "label": "net.netfilter.nf_conntrack_count", "value": num(count),
                         "ref": {"sysctl": "net.netfilter.nf_conntrack_count"}})
    if not evidence:
        return []
    if cmax:
        evidence.append({"kind": "sysctl", "label": "net.netfilter.nf_conntrack_max", "value": num(cmax),
                         "ref": {"sysctl": "net.netfilter.nf_conntrack_max"}})
    to = max(4 * cmax, 262144) if cmax else 262144
    title = ("dmesg says `nf_conntrack: table full`" if any(e["kind"] == "log" for e in evidence)
             else f"nf_conntrack_count {num(count or 0)} is at the limit")
    title += f", and nf_conntrack_max is {num(cmax)}" if cmax else ": raise nf_conntrack_max"
    return [make_finding(data, "conntrack-full", "critical", title, evidence,
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
                    evidence.append({"kind": "counter", "label": f"{name} ({when})", "value": num(v),
                                     "ref": {"summary": kind, "role": role, "counter": name}})
    for role, dm in data.all("dmesg"):
        msg = (dm.get("messages") or {}).get("syn_flood")
        if msg:
            evidence.append({"kind": "log", "label": f"kernel log ({role})",
                             "value": f"{num(msg['count'])} x '{msg['sample']}'",
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
        title = f"The listen queue overflowed {num(overflows)} times"
    elif backlog is not None:
        title = f"A listener's accept queue is full (Send-Q {backlog})"
    else:
        title = "The kernel reports SYN flooding on a listening port"
    if somaxconn is not None:
        title += f" and somaxconn is {somaxconn}"
    return [make_finding(data, "listen-overflow", "warning", title, evidence, suggestion)]


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
        evidence.append({"kind": "summary", "label": "sockets in TIME_WAIT", "value": num(tw),
                         "ref": {"summary": src[0], "role": src[1], "field": "timewait"}})
    if estab is not None and src is not None and conns:
        evidence.append({"kind": "summary", "label": "established / wrk connections",
                         "value": f"{num(estab)} of {num(conns)}",
                         "ref": {"summary": src[0], "role": src[1], "field": "estab"}})
    for name, value in (("net.ipv4.ip_local_port_range", rng), ("net.ipv4.tcp_tw_reuse", reuse),
                        ("net.ipv4.tcp_max_tw_buckets", buckets)):
        if value is not None:
            evidence.append({"kind": "sysctl", "label": name,
                             "value": f"{value} ({num(ports)} ports)" if name.endswith("range") and ports else str(value),
                             "ref": {"sysctl": name}})
    for role, msg in overflow:
        evidence.append({"kind": "log", "label": f"kernel log ({role})", "value": f"{num(msg['count'])} x '{msg['sample']}'",
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
        parts.append(f"only {num(estab)} of {num(conns)} connections are established")
    if tw is not None:
        parts.append(f"{num(tw)} sockets sit in TIME_WAIT")
    if ports is not None:
        parts.append(f"the local port range holds {num(ports)} ports")
    if reuse is not None and suggestion and suggestion["knob"].endswith("tw_reuse"):
        parts.append(f"tcp_tw_reuse is {reuse}")
    if overflow:
        parts.append("the TIME_WAIT bucket table overflowed")
    title = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    return [make_finding(data, "timewait-ports", "warning", title[:1].upper() + title[1:], evidence, suggestion)]
