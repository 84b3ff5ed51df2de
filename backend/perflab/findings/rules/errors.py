"""Whether the run measured anything: failed requests make it invalid."""

from __future__ import annotations

from perflab.findings.rules.base import Evidence, Finding, RunData, make_finding, num, rule

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
    evidence: list[Evidence] = [{"kind": "summary", "label": "wrk requests", "value": num(requests),
                                 "ref": {"summary": "wrk", "role": role, "field": "requests"}}]
    if non2xx:
        evidence.append({"kind": "summary", "label": "non-2xx/3xx responses", "value": num(non2xx),
                         "ref": {"summary": "wrk", "role": role, "field": "non_2xx_3xx"}})
    for k, v in sock.items():
        if v:
            evidence.append({"kind": "summary", "label": f"socket errors: {k}", "value": num(v),
                             "ref": {"summary": "wrk", "role": role, "field": f"socket_errors.{k}"}})
    access = data.first("nginx-access")
    if access is not None:
        classes = access[1].get("status") or {}
        for cls in ("4xx", "5xx"):
            if classes.get(cls):
                evidence.append({"kind": "summary", "label": f"nginx access log {cls}", "value": num(classes[cls]),
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
    title = (f"{num(failed)} of {num(requests)} requests failed ({pct:.1f}%): the run is invalid; {layer}"
             if requests else f"wrk completed no request: the run is invalid; {layer}")
    return [make_finding(data, "errors", "critical", title, evidence, None)]
