"""The load generator itself: a saturated wrk measures its own limit, not the server's."""

from __future__ import annotations

from perflab.findings.rules.base import Evidence, Finding, RunData, make_finding, rule

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
            return [make_finding(data, "loadgen-saturated", "warning",
                             f"{what[:1].upper()}{what[1:]}: the load generator is saturated, so the result is a lower "
                             "bound of what the server can do", ev, None)]
    for role, pa in data.all("pidstat-averages"):
        total = sum(float(a.get("cpu_pct") or 0) for a in pa.get("averages") or []
                    if a.get("command") == "wrk" and not a.get("tid"))
        if total >= LOADGEN_BUSY_PCT * threads:
            ev = [{"kind": "process", "label": f"wrk CPU (pidstat, {role})", "value": f"{total:.0f}% for {threads} threads",
                   "ref": {"summary": "pidstat-averages", "role": role, "command": "wrk"}}]
            return [make_finding(data, "loadgen-saturated", "warning",
                             f"wrk used {total:.0f}% CPU with {threads} threads: the load generator is saturated, "
                             "so the result is a lower bound of what the server can do", ev, None)]
    return []
