"""Packets on the wire: responses sent in more segments than their size needs (sendfile without tcp_nopush)."""

from __future__ import annotations

import math

from perflab.findings.rules.base import Evidence, Finding, RunData, make_finding, rule

ETH_MSS = 1448
EXTRA_SEGMENTS = 0.8


@rule(
    id="sendfile-nopush",
    title="sendfile without tcp_nopush sends each response's headers in a packet of their own",
    reads="nginx.conf snapshot (sendfile, tcp_nopush), strace logs (setsockopt TCP_CORK / TCP_NODELAY / "
          "TCP_QUICKACK, writev and sendfile calls), nstat TcpOutSegs against wrk's requests and bytes",
    thresholds=f"sendfile on and tcp_nopush off, with either the strace log showing headers written (writev) "
               f"apart from the body (sendfile) and no TCP_CORK, or nstat's segments out per response >= "
               f"{EXTRA_SEGMENTS} above what the response size needs at an Ethernet MSS of {ETH_MSS} bytes; "
               "silent when TCP_CORK is already used, or TCP_QUICKACK shows the extra packets are ACKs",
    suggests="nginx tcp_nopush: on (with sendfile on): headers and the first part of the body leave in one packet",
    false_positives="nstat on loopback counts both ends and a 64 KiB MSS: there only the strace evidence tells",
    docs="https://nginx.org/en/docs/http/ngx_http_core_module.html#tcp_nopush",
)
def sendfile_nopush(data: RunData) -> list[Finding]:
    nginx = data.nginx()
    if nginx is None or "on" not in data.nginx_values("sendfile"):
        return []
    nopush = data.nginx_values("tcp_nopush")
    if "on" in nopush:
        return []
    current = nopush[0] if nopush else "off (default)"
    ev: list[Evidence] = [
        {"kind": "config", "label": "sendfile", "value": "on", "ref": {"file": nginx[1], "role": nginx[0],
                                                                       "directive": "sendfile"}},
        {"kind": "config", "label": "tcp_nopush", "value": current, "ref": {"file": nginx[1], "role": nginx[0],
                                                                           "directive": "tcp_nopush"}}]
    mechanism = False
    for role, st in data.all("strace"):
        opts = st.get("setsockopt") or {}
        if opts.get("TCP_CORK") or opts.get("TCP_QUICKACK"):
            return []  # already corked, or the extra packets are immediate ACKs
        calls = st.get("syscalls") or {}
        writev, sendfile = (int((calls.get(s) or {}).get("calls") or 0) for s in ("writev", "sendfile"))
        if writev and sendfile:
            mechanism = True
            nodelay = sum(int(v) for v in (opts.get("TCP_NODELAY") or {}).values())
            ev.append({"kind": "syscall", "label": "writev (headers) then sendfile (body)",
                       "value": f"{writev:,} writev, {sendfile:,} sendfile, no setsockopt TCP_CORK"
                                + (f", {nodelay:,} TCP_NODELAY" if nodelay else ""),
                       "ref": {"summary": "strace", "role": role, "syscall": "sendfile"}})
    packets = False
    wrk = data.first("wrk")
    requests = int(wrk[1].get("requests") or 0) if wrk else 0
    for role, ns in data.all("nstat"):
        out = (ns.get("counters") or {}).get("TcpOutSegs")
        if not out or not requests or wrk is None:
            continue
        per = float(out) / requests
        size = float(wrk[1].get("bytes_read") or 0) / requests
        need = max(1, math.ceil(size / ETH_MSS))
        packets = per - need >= EXTRA_SEGMENTS
        ev.append({"kind": "counter", "label": f"segments out per response (nstat TcpOutSegs, {role})",
                   "value": f"{per:.2f} for {size / 1024:,.1f} KiB responses ({need} at MSS {ETH_MSS})",
                   "ref": {"summary": "nstat", "role": role, "counter": "TcpOutSegs"}})
        break
    if not (mechanism or packets):
        return []
    how = ("nginx writes each response's headers with writev and its body with sendfile, uncorked"
           if mechanism else "responses leave in more packets than their size needs")
    return [make_finding(data, "sendfile-nopush", "warning",
                         f"sendfile is on and tcp_nopush {current}: {how}, so headers go out in a packet of their own",
                         ev, {"component": "nginx", "knob": "tcp_nopush", "from": current, "to": "on"})]
