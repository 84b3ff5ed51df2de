"""nginx's own event loop as the bottleneck: a worker busy with one slow, large transfer while the
connections its `reuseport` socket was given wait; access-log writes serialised on the log file's lock."""

from __future__ import annotations

from typing import Any

from perflab.findings.rules.base import PROFILE_FUNCTIONS, Evidence, Finding, RunData, make_finding, num, rule

STALL_CONNECT_MS = 100.0
STALL_REQUEST_MS = 500.0
RMEM_LARGE = 4 * 1024 * 1024
RMEM_TO = 1024 * 1024
WORKER_WAIT_PCT = 10.0


def _access_ev(role: str, field: str, label: str, stats: dict[str, Any]) -> Evidence:
    return {"kind": "summary", "label": label,
            "value": f"p50 {num(stats['p50'])} ms, p90 {num(stats['p90'])} ms, max {num(stats['max'])} ms "
                     f"over {num(stats['n'])} requests",
            "ref": {"summary": "nginx-access", "role": role, "field": f"latency_ms.{field}"}}


@rule(
    id="reuseport-stall",
    title="Fast requests stall behind a slow large transfer on the same nginx worker (reuseport)",
    reads="nginx.conf snapshot (`listen ... reuseport`), nginx access log timings (upstream connect/header "
          "time, request time, 499s), sysctl net.ipv4.tcp_rmem, per-worker pidstat averages (%CPU, %wait)",
    thresholds=f"a `reuseport` listener and the access log's upstream connect time p90 >= "
               f"{STALL_CONNECT_MS:.0f} ms (a nearby upstream accepts in about 1 ms: the request waited for "
               f"its worker), or request time p99 >= {STALL_REQUEST_MS:.0f} ms with requests the clients gave "
               "up on (499)",
    suggests=f"net.ipv4.tcp_rmem: a maximum of {RMEM_TO // 1024} KiB when it is >= {RMEM_LARGE // 1024 // 1024} MiB "
             "(a worker then reads a large transfer in short turns); else `listen ... rcvbuf=`; when workers wait "
             f"(pidstat %wait >= {WORKER_WAIT_PCT:.0f}%), `reuseport` off with `accept_mutex on`",
    false_positives="an upstream that is itself slow to accept (its backlog full): its connect time is then "
                    "long without reuseport too",
    docs="https://nginx.org/en/docs/http/ngx_http_core_module.html#listen",
)
def reuseport_stall(data: RunData) -> list[Finding]:
    listens = [v for v in data.nginx_values("listen") if "reuseport" in v.split()]
    access = data.first("nginx-access")
    nginx = data.nginx()
    if not listens or access is None or nginx is None:
        return []
    role, log = access
    lat = log.get("latency_ms") or {}
    uct, uht, rt = lat.get("upstream_connect_time"), lat.get("upstream_header_time"), lat.get("request_time")
    gave_up = int((log.get("statuses") or {}).get("499") or 0)
    stalled_connect = uct is not None and uct["p90"] >= STALL_CONNECT_MS
    stalled_requests = rt is not None and rt["p99"] >= STALL_REQUEST_MS and gave_up > 0
    if not (stalled_connect or stalled_requests):
        return []
    ev: list[Evidence] = [{"kind": "config", "label": "listen", "value": listens[0],
                           "ref": {"file": nginx[1], "role": nginx[0], "directive": "listen"}}]
    if uct is not None:
        ev.append(_access_ev(role, "upstream_connect_time", "upstream connect time (access log)", uct))
    if uht is not None:
        ev.append(_access_ev(role, "upstream_header_time", "upstream header time (access log)", uht))
    if rt is not None:
        ev.append(_access_ev(role, "request_time", "request time (access log)", rt))
    if gave_up:
        ev.append({"kind": "summary", "label": "499: the client closed the connection first", "value": num(gave_up),
                   "ref": {"summary": "nginx-access", "role": role, "field": "statuses.499"}})
    waits: list[float] = []
    for prole, pa in data.all("pidstat-averages"):
        rows = [a for a in pa.get("averages") or [] if str(a.get("command") or "").startswith("nginx")]
        if rows:
            cpus = [float(a.get("cpu_pct") or 0) for a in rows]
            waits = [float(a.get("wait_pct") or 0) for a in rows]
            ev.append({"kind": "process", "label": f"nginx workers (pidstat, {prole})",
                       "value": f"%CPU {' / '.join(f'{c:.0f}' for c in cpus[:8])}; "
                                f"%wait up to {max(waits):.0f}",
                       "ref": {"summary": "pidstat-averages", "role": prole, "command": "nginx"}})
            break
    rmem = data.sysctl.get("net.ipv4.tcp_rmem")
    parts = rmem.split() if rmem else []
    if rmem:
        ev.append({"kind": "sysctl", "label": "net.ipv4.tcp_rmem", "value": rmem, "ref": {"sysctl": "net.ipv4.tcp_rmem"}})
    if waits and max(waits) >= WORKER_WAIT_PCT:
        suggestion = {"component": "nginx", "knob": "listen reuseport", "from": listens[0],
                      "to": f"{' '.join(w for w in listens[0].split() if w != 'reuseport')} (accept_mutex on)"}
    elif len(parts) == 3 and parts[2].isdigit() and int(parts[2]) >= RMEM_LARGE:
        suggestion = {"component": "kernel", "knob": "net.ipv4.tcp_rmem", "from": " ".join(parts),
                      "to": f"{parts[0]} {min(int(parts[1]), RMEM_TO) if parts[1].isdigit() else parts[1]} {RMEM_TO}"}
    else:
        suggestion = {"component": "nginx", "knob": "listen rcvbuf", "from": listens[0],
                      "to": f"{listens[0]} rcvbuf={RMEM_TO // 1024}k"}
    what = (f"upstream connects wait {num(uct['p90'])} ms (p90)" if stalled_connect and uct is not None
            else f"requests take up to {num(rt['p99']) if rt else '?'} ms (p99)")
    title = (f"{what} behind `listen ... reuseport`"
             + (f", {num(gave_up)} clients gave up (499)" if gave_up else "")
             + ": a worker busy with a large transfer leaves the connections of its socket waiting")
    return [make_finding(data, "reuseport-stall", "warning", title[:1].upper() + title[1:], ev, suggestion)]


# -- access log writes behind the log file's lock ---------------------------------------------------------

LOCK_SHARE = 0.05
LOCK_FUNCS = ("osq_lock", "rwsem_down_write_slowpath", "rwsem_optimistic_spin", "__mutex_lock.constprop.0",
              "__mutex_lock", "mutex_spin_on_owner", "locks_lock_inode_wait", "flock_lock_inode",
              "posix_lock_inode")
LOG_FUNCS = ("ngx_http_log_handler", "ngx_http_log_write", "ngx_write_fd", "ext4_file_write_iter",
             "ext4_buffered_write_iter", "xfs_file_write_iter", "xfs_file_buffered_write")
PROFILE_FUNCTIONS.update(LOCK_FUNCS + LOG_FUNCS)


@rule(
    id="access-log-lock",
    title="Access-log writes wait on the log file's lock",
    reads="CPU profiles (perf, flame graphs): lock frames (osq_lock, rwsem_down_write_slowpath, "
          "__mutex_lock, flock/posix lock) and the access log's write path (ngx_http_log_handler, "
          "ext4/xfs file write); the nginx.conf snapshot (access_log)",
    thresholds=f"lock frames >= {LOCK_SHARE:.0%} of the profile's samples, with the log write path holding at "
               "least as many samples as the lock (the lock is taken under log writes); silent when every "
               "access_log is `off` or has `buffer=`",
    suggests="nginx access_log: `buffer=64k flush=1s` (one write per 64 KiB instead of one per request), or "
             "`off` for a benchmark",
    false_positives="another writer of the same file system (a database's journal) under the same lock",
    docs="https://nginx.org/en/docs/http/ngx_http_log_module.html#access_log",
)
def access_log_lock(data: RunData) -> list[Finding]:
    logs = data.nginx_values("access_log")
    if logs and all(v.strip() == "off" or "buffer=" in v for v in logs):
        return []
    for prof in data.profiles:
        fns, total = prof.get("functions") or {}, float(prof.get("total") or 0)
        if total <= 0:
            continue
        lock = max(((f, fns[f]["total"]) for f in LOCK_FUNCS if f in fns), key=lambda x: x[1], default=None)
        path = max(((f, fns[f]["total"]) for f in LOG_FUNCS if f in fns), key=lambda x: x[1], default=None)
        if lock is None or path is None or lock[1] < LOCK_SHARE * total or path[1] < lock[1]:
            continue
        ref = {"profile": prof.get("profile_id"), "role": prof.get("role")}
        ev = [{"kind": "profile", "label": lock[0], "value": f"{lock[1] / total:.0%} of samples",
               "ref": {**ref, "function": lock[0]}},
              {"kind": "profile", "label": path[0], "value": f"{path[1] / total:.0%} of samples",
               "ref": {**ref, "function": path[0]}}]
        current = logs[0] if logs else "logs/access.log combined (default)"
        nginx = data.nginx()
        if logs and nginx is not None:
            ev.append({"kind": "config", "label": "access_log", "value": current,
                       "ref": {"file": nginx[1], "role": nginx[0], "directive": "access_log"}})
        target = current.replace(" (default)", "")
        return [make_finding(data, "access-log-lock", "warning",
                             f"{lock[0]} takes {lock[1] / total:.0%} of the CPU samples under the access log's write "
                             f"path ({path[0]} {path[1] / total:.0%}): workers queue on the log file's lock",
                             ev, {"component": "nginx", "knob": "access_log", "from": current,
                                  "to": f"{target} buffer=64k flush=1s"})]
    return []
