"""A reverse proxy's copying: nginx proxy buffers too small for the responses."""

from __future__ import annotations

import math

from perflab.findings.rules.base import (
    Evidence,
    Finding,
    RunData,
    make_finding,
    num,
    rule,
    series_evidence,
    strace_requests,
)

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
        requests = strace_requests(rows)
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
                                 "value": f"{num(r.get('calls') or 0)} calls, {r.get('pct_time')}% of syscall time",
                                 "ref": {"syscall": s, "role": role}})
        evidence.append({"kind": "syscall", "label": f"{pair[0]}+{pair[1]} per request",
                         "value": f"{calls / requests:.1f} calls per recvfrom ({num(requests)} recvfrom)",
                         "ref": {"syscall": "recvfrom", "role": role}})
        if sy is not None:
            evidence.append(series_evidence(sy[0], sy[1], "system CPU (vmstat sy)"))
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
        out.append(make_finding(data, "copy-bound-proxy", "warning", title, evidence,
                            {"component": "nginx", "knob": "proxy_buffers", "from": current, "to": f"4 {size}k"}))
        break
    return out
