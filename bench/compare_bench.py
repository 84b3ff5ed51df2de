"""Compare and history at 10x the size users reach (issue 13): 3,000 experiments x 3 runs x 3 hosts,
150 series per host, 5 minutes at 1 Hz (1.2 billion samples in 4 million series chunks).

The project is generated straight into a throwaway database with COPY (what ingest would have left:
runs with headlines, series with steady-state stats, each series' samples as one encoded chunk, wrk and
strace-c summaries, config snapshots, decisions), then the API is timed in-process (FastAPI
TestClient, warm, median of 20):
  - history page (50 experiments, default sort; and sorted by RPS; and filtered by decision)
  - compare of 4 experiments (12 runs)
  - overlays of vmstat.sy and nginx %CPU (summed over pids per second) for those runs
Also reported: points per overlay series (<= 2000), and the database, series and chunk sizes.
`--scale 0.1` runs at a tenth of the experiments (the size of the earlier one-row-per-sample bench).
Targets: database <= 20 GiB, history <= 100 ms, compare of 4 <= 300 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from perflab.series import codec

from bench.common import bench_database, write_result

ROLES = ("loadgen", "proxy", "upstream")
COMMANDS = {"loadgen": "wrk", "proxy": "nginx", "upstream": "java"}
VMSTAT = ("r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo", "in", "cs", "us", "sy", "id", "wa",
          "st", "gu")
PIDSTAT = ("usr_pct", "system_pct", "guest_pct", "wait_pct", "cpu_pct", "cswch_per_s", "nvcswch_per_s",
           "minflt_per_s", "majflt_per_s", "vsz_kb", "rss_kb")
SYSCALLS = ("writev", "readv", "recvfrom", "epoll_wait", "ioctl", "getsockopt", "close", "accept4", "openat",
            "sendfile", "write", "read", "setsockopt", "connect", "socket", "fcntl", "newfstatat", "brk", "mmap",
            "munmap")
LEVELS = (0.8, 0.9, 1.0, 1.1)
VARIANTS = 3
TRIM = 0.1


def series_layout(per_host: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(source, metric, labels) for one host: all vmstat columns, then pidstat metrics per pid."""
    out: list[tuple[str, str, dict[str, Any]]] = [("vmstat", m, {}) for m in VMSTAT]
    pid = 0
    while len(out) < per_host:
        for m in PIDSTAT:
            if len(out) >= per_host:
                break
            out.append(("pidstat", m, {"pid": 7000 + pid}))
        pid += 1
    return out


class Shapes:
    """Value strings and their steady-state stats for each series slot, variant and experiment level.

    Precomputed once (as COPY text) so writing 4 million chunks costs string joins, not encoding.
    """

    def __init__(self, slots: int, seconds: int, seed: int = 7) -> None:
        rng = random.Random(seed)
        self.values: dict[tuple[int, int, int], str] = {}
        self.stats: dict[tuple[int, int, int], str] = {}
        lo, hi = max(1, int(seconds * TRIM)), seconds - max(1, int(seconds * TRIM))
        for slot in range(slots):
            base = rng.uniform(1, 100) * (100 if slot % 7 == 0 else 1)
            for var in range(VARIANTS):
                raw = [base * (1 + 0.2 * math.sin(i / 9 + var) + rng.gauss(0, 0.05)) for i in range(seconds)]
                for li, level in enumerate(LEVELS):
                    vals = [round(max(v * level, 0.0), 2) for v in raw]
                    # COPY text of the bytea: \\x then hex.
                    self.values[(slot, var, li)] = "\\\\x" + codec.encode_values(vals).hex()
                    steady = sorted(vals[lo:hi] if seconds >= 5 else vals)
                    mean = sum(steady) / len(steady)
                    self.stats[(slot, var, li)] = json.dumps({
                        "mean": mean, "min": steady[0], "max": steady[-1], "n": len(steady),
                        "median": statistics.median(steady), "stdev": statistics.stdev(steady) if len(steady) > 1
                        else None, "trim_fraction": TRIM})


def wrk_data(rng: random.Random, level: float) -> dict[str, Any]:
    rps = 10000 * level * rng.uniform(0.93, 1.07)
    p = {"50": 8 / level, "75": 12 / level, "90": 40 / level, "99": 110 / level}
    return {
        "tool": "wrk", "threads": 2, "connections": 100, "duration_s": 10.0, "requests": int(rps * 10),
        "bytes_read": int(rps * 10 * 120000), "requests_per_sec": round(rps, 2),
        "transfer_per_sec_bytes": round(rps * 120000, 2),
        "latency_ms": {"avg": round(16 / level, 2), "stdev": round(20 / level, 2), "max": round(300 / level, 2),
                       "within_stdev_pct": 88.0},
        "req_per_sec_per_thread": {"avg": rps / 2, "stdev": 900.0, "max": rps / 1.5, "within_stdev_pct": 60.0},
        "latency_percentiles_ms": {k: round(v * rng.uniform(0.9, 1.1), 2) for k, v in p.items()},
        "non_2xx_3xx": 0, "socket_errors": {"connect": 0, "read": 0, "write": 0, "timeout": 0}, "warnings": [],
    }


def strace_data(rng: random.Random, level: float) -> dict[str, Any]:
    rows = []
    for i, name in enumerate(SYSCALLS):
        calls = int(50000 / (i + 1) * (level if i % 2 else 1 / level) * rng.uniform(0.9, 1.1))
        secs = round(calls * (5 + i) / 1e6, 6)
        rows.append({"syscall": name, "calls": calls, "errors": 0, "seconds": secs,
                     "usecs_per_call": int(secs / max(calls, 1) * 1e6), "pct_time": None})
    total = {"calls": sum(r["calls"] for r in rows), "errors": 0, "seconds": round(sum(r["seconds"] for r in rows), 6)}
    return {"syscalls": rows, "total": total, "columns": [], "warnings": []}


NGINX_CONF = """worker_processes 2;
events {{ worker_connections 4096; }}
http {{
  upstream backend {{ server 10.0.0.3:8080; keepalive 100; }}
  server {{
    listen 80 reuseport;
    location / {{
      proxy_pass http://backend;
      proxy_http_version 1.1;
      {buffers}
    }}
  }}
}}
"""


def copy_rows(raw: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    buf = io.StringIO()
    for r in rows:
        buf.write("\t".join("\\N" if v is None else (json.dumps(v) if isinstance(v, dict | list) else str(v))
                            for v in r) + "\n")
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as cp:
        cp.write(buf.getvalue())


def timed(client: Any, path: str, params: Any, n: int = 20) -> tuple[float, Any]:
    r = client.get(path, params=params)
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    times = []
    for _ in range(n):
        t = time.perf_counter()
        r = client.get(path, params=params)
        times.append(time.perf_counter() - t)
        assert r.status_code == 200
    return statistics.median(times) * 1000, r.json()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--experiments", type=int, default=3000)
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of --experiments to generate")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--hosts", type=int, default=3, choices=(1, 2, 3))
    ap.add_argument("--series-per-host", type=int, default=150)
    ap.add_argument("--seconds", type=int, default=300, help="run length at 1 Hz")
    ap.add_argument("--keep", action="store_true", help="print the database URL and wait before dropping it")
    args = ap.parse_args()
    args.experiments = max(4, round(args.experiments * args.scale))
    # Stopped with SIGTERM: unwind, so the throwaway database (>10 GiB at full size) is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    roles = ROLES[: args.hosts] if args.hosts > 1 else ("proxy",)
    layout = series_layout(args.series_per_host)
    n_runs = args.experiments * args.runs
    series_total = n_runs * len(roles) * len(layout)
    home = Path(tempfile.mkdtemp(prefix="perflab-bench-compare-"))

    with bench_database("compare") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        os.environ["PERFLAB_HOME"] = str(home)
        from perflab.config import get_settings

        get_settings.cache_clear()
        from perflab import db
        from perflab.artifacts import service as artifacts
        from perflab.auth.models import User
        from perflab.cli import migrate
        from perflab.decisions.models import Decision
        from perflab.experiments.models import Experiment
        from perflab.hosts.models import Host
        from perflab.ingest.pipeline import headline_from_wrk
        from perflab.projects.models import Project
        from perflab.runs.models import Run, RunHost, Stream
        from perflab.tokens import service as tokens
        from sqlalchemy import insert, text

        migrate(url)
        engine = db.make_engine(url)
        db.set_engine(engine)
        t_start = time.perf_counter()

        seconds = args.seconds
        shapes = Shapes(len(layout), seconds)
        print(f"compare bench: {series_total:,} series x {seconds} s -> {series_total * seconds:,} samples", flush=True)

        # -- metadata ----------------------------------------------------------------------------------
        rng = random.Random(42)
        with db.unit_of_work() as s:
            project = Project(slug="bench", name="bench: nginx proxy throughput", description="generated")
            s.add(project)
            s.flush()
            pid = project.id
            user = User(email="bench@example.test", password_hash="x", role="admin")
            s.add(user)
            token, _ = tokens.create_token(s, project=project, name="bench", scopes=["read"])
            hosts = []
            for role in roles:
                h = Host(project_id=pid, agent_id=f"bench-{role}", hostname=f"{role}-1", role=role,
                         facts={"kernel": "6.1.0", "cpus_online": 4, "distro": "Debian 12"}, capabilities={},
                         collectors=[], heartbeat={})
                s.add(h)
                hosts.append(h)
            s.flush()
            host_ids = {h.role: h.id for h in hosts}
            t0 = datetime(2026, 6, 1, tzinfo=UTC)
            exp_rows = [{"project_id": pid, "name": f"exp-{i:03d}", "hypothesis": f"try setting {i}",
                         "tags": [f"t{i % 5}"], "status": "done", "created_at": t0 + timedelta(hours=i),
                         "updated_at": t0 + timedelta(hours=i)} for i in range(args.experiments)]
            exp_ids = list(s.scalars(insert(Experiment).returning(Experiment.id, sort_by_parameter_order=True), exp_rows))
            runs: list[dict[str, Any]] = []
            for i, eid in enumerate(exp_ids):
                for k in range(args.runs):
                    start = t0 + timedelta(hours=i, minutes=10 * k)
                    runs.append({"id": uuid.uuid4(), "project_id": pid, "experiment_id": eid, "label": f"run {k + 1}",
                                 "status": "complete", "status_reasons": [], "source": "agent", "started_at": start,
                                 "ended_at": start + timedelta(seconds=seconds), "load_command": "wrk -t2 -c100",
                                 "expected_roles": list(roles), "headline": {}, "created_at": start,
                                 "_level": i % len(LEVELS), "_var": k % VARIANTS})
            wrk = {r["id"]: wrk_data(rng, LEVELS[r["_level"]]) for r in runs}
            for r in runs:
                r["headline"] = headline_from_wrk(wrk[r["id"]])
            s.execute(insert(Run), [{k: v for k, v in r.items() if not k.startswith("_")} for r in runs])
            s.execute(insert(RunHost), [{"run_id": r["id"], "host_id": host_ids[role], "role": role, "state": "done",
                                         "detail": {}, "joined_at": r["started_at"]} for r in runs for role in roles])
            streams = []
            sid = 0
            for r in runs:
                for role in roles:
                    for name, source in (("vmstat", "vmstat"), (f"pidstat:{COMMANDS[role]}", "pidstat")):
                        sid += 1
                        streams.append({"id": sid, "run_id": r["id"], "host_id": host_ids[role],
                                        "agent_id": f"bench-{role}", "role": role, "source": source, "name": name,
                                        "lines": seconds, "samples": 0, "dropped": 0, "max_seq": 1, "parsed_seq": 1,
                                        "closed_seq": 1, "chunks": 1, "state": "closed", "parser_state": {},
                                        "closed_at": r["ended_at"]})
                    if role == roles[0]:
                        sid += 1
                        streams.append({**streams[-1], "id": sid, "source": "wrk", "name": "load"})
                    if role == "proxy" or len(roles) == 1:
                        sid += 1
                        streams.append({**streams[-1], "id": sid, "source": "strace-c", "name": "strace-c:nginx"})
            s.execute(insert(Stream), streams)
            s.execute(text("SELECT setval(pg_get_serial_sequence('stream', 'id'), :n)"), {"n": sid})
            stream_of = {(st["run_id"], st["role"], st["source"]): st["id"] for st in streams}
            raw_s = s.connection().connection.driver_connection
            summaries = []
            for r in runs:
                summaries.append((r["id"], stream_of[(r["id"], roles[0], "wrk")], roles[0], "wrk", wrk[r["id"]], []))
                proxy = "proxy" if "proxy" in roles else roles[0]
                summaries.append((r["id"], stream_of[(r["id"], proxy, "strace-c")], proxy, "strace-c",
                                  strace_data(rng, LEVELS[r["_level"]]), []))
            copy_rows(raw_s, "summary", ("run_id", "stream_id", "role", "kind", "data", "warnings"), summaries)
            for i, r in enumerate(runs):
                if r["label"] == "run 1":
                    buffers = "" if i % 4 == 0 else f"proxy_buffers {4 * (i % 7 + 1)} {(i % 3 + 1) * 4}k;"
                    artifacts.store(s, project_id=pid, run_id=r["id"], kind="config", name="nginx.conf",
                                    data=NGINX_CONF.format(buffers=buffers).encode(), role=roles[min(1, len(roles) - 1)])
            s.execute(insert(Decision), [
                {"project_id": pid, "experiment_id": eid, "component": "nginx", "knob": "proxy_buffers",
                 "before": "(default)", "after": "4 128k", "author_id": user.id, "rationale": "",
                 "status": ("proposed", "adopted", "rejected", "inconclusive")[i % 4]}
                for i, eid in enumerate(exp_ids) if i % 3 == 0])
        meta_s = time.perf_counter() - t_start

        # -- series and their chunks: what ingest leaves once a stream closed (one chunk per series) --
        raw = engine.raw_connection()
        conn = raw.driver_connection
        assert conn is not None
        load0 = time.perf_counter()
        written = 0
        ser_id = 0
        labels_json: dict[tuple[str, str, int], str] = {}
        for n, r in enumerate(runs):
            series_buf = io.StringIO()
            chunk_buf = io.StringIO()
            t0_text = (r["started_at"] + timedelta(seconds=1)).isoformat(sep=" ")
            t1_text = (r["started_at"] + timedelta(seconds=seconds)).isoformat(sep=" ")
            chunk_mid = f"\t0\t{seconds}\t{t0_text}\t{t1_text}\t1000000\t\\N\t"
            for role in roles:
                stream_id = stream_of[(r["id"], role, "vmstat")], stream_of[(r["id"], role, "pidstat")]
                for slot, (source, metric, labels) in enumerate(layout):
                    ser_id += 1
                    lab = {"command": COMMANDS[role], **labels} if source == "pidstat" else {}
                    key = metric if not lab else metric + "{" + ",".join(f"{k}={lab[k]}" for k in sorted(lab)) + "}"
                    lkey = (role, source, slot)
                    if lkey not in labels_json:
                        labels_json[lkey] = json.dumps(lab)
                    shape = (slot, r["_var"], r["_level"])
                    series_buf.write(f"{ser_id}\t{r['id']}\t{stream_id[source == 'pidstat']}\t{role}\t{source}\t"
                                     f"{metric}\t{key}\t{labels_json[lkey]}\t\t{seconds}\t{shapes.stats[shape]}\n")
                    chunk_buf.write(f"{r['id']}\t{ser_id}{chunk_mid}{shapes.values[shape]}\n")
            with conn.cursor() as cur:
                with cur.copy("COPY series (id, run_id, stream_id, role, source, metric, key, labels, unit, points,"
                              " stats) FROM STDIN") as cp:
                    cp.write(series_buf.getvalue())
                with cur.copy("COPY series_chunk (run_id, series_id, chunk, n, t0, t1, step_us, times, vals)"
                              " FROM STDIN") as cp:
                    cp.write(chunk_buf.getvalue())
            written += len(roles) * len(layout) * seconds
            if n % 100 == 99:
                conn.commit()
                el = time.perf_counter() - load0
                print(f"  {n + 1}/{len(runs)} runs, {written:,} samples, {written / el:,.0f}/s", flush=True)
        conn.commit()
        with conn.cursor() as cur:
            cur.execute("SELECT setval(pg_get_serial_sequence('series', 'id'), %s)", (ser_id,))
        conn.commit()
        load_s = time.perf_counter() - load0
        raw.close()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
            db_size = c.execute(text("SELECT pg_database_size(current_database())")).scalar()
            chunk_size = c.execute(text("SELECT pg_total_relation_size('series_chunk')")).scalar()
            series_size = c.execute(text("SELECT pg_total_relation_size('series')")).scalar()
            n_samples = c.execute(text("SELECT sum(n) FROM series_chunk")).scalar()
        print(f"  loaded {written:,} samples in {load_s:.0f} s ({written / load_s:,.0f}/s); "
              f"database {db_size / 2**30:.1f} GiB", flush=True)

        # -- the API, in-process, warm -----------------------------------------------------------------
        from fastapi.testclient import TestClient
        from perflab.main import create_app

        app = create_app()
        # localhost: a Host the allow-list accepts outside production (TestClient says "testserver").
        with TestClient(app, base_url="http://localhost") as client:
            client.headers["Authorization"] = f"Bearer {token}"
            hist_ms, hist = timed(client, "/api/projects/bench/experiments", {"page": 1, "page_size": 50})
            assert hist["total"] == args.experiments and len(hist["items"]) == min(50, args.experiments)
            hist_rps_ms, _ = timed(client, "/api/projects/bench/experiments", {"sort": "rps", "page_size": 50})
            hist_dec_ms, dec = timed(client, "/api/projects/bench/experiments", {"decision": "adopted"})
            picked = [f"exp-{i:03d}" for i in (0, 1, 2, 3)]
            params = {"baseline": picked[0], "experiments": picked[1:]}
            cmp_ms, doc = timed(client, "/api/projects/bench/compare", params)
            assert sum(c["n"] for c in doc["results"][0]["cells"].values()) == 4 * args.runs
            ov_role = "proxy" if "proxy" in roles else roles[0]
            ov_ms, ov = timed(client, "/api/projects/bench/compare/overlay",
                              {**params, "role": ov_role, "metric": "vmstat.sy"})
            ov_cpu_ms, ov_cpu = timed(client, "/api/projects/bench/compare/overlay",
                                      {**params, "role": ov_role, "metric": "pidstat.cpu_pct[nginx]"})
            ov_small_ms, ov_small = timed(client, "/api/projects/bench/compare/overlay",
                                          {**params, "role": ov_role, "metric": "vmstat.sy", "max_points": 100})

        def points(body: dict[str, Any]) -> list[int]:
            return [len(ln["v"]) for e in body["experiments"] for r in e["runs"] for ln in r["lines"]]

        pts, pts_cpu, pts_small = points(ov), points(ov_cpu), points(ov_small)
        engine.dispose()
        result = {
            "size": {
                "experiments": args.experiments, "scale": args.scale, "runs_per_experiment": args.runs,
                "hosts": len(roles), "series_per_host": len(layout), "seconds_per_run": seconds, "runs": n_runs,
                "series": series_total, "samples": written, "samples_in_chunks": n_samples,
            },
            "load": {"metadata_s": round(meta_s, 1), "series_and_chunks_s": round(load_s, 1),
                     "samples_per_s": round(written / load_s)},
            "database_bytes": db_size, "database_gib": round(db_size / 2**30, 2),
            "series_chunk_table_bytes": chunk_size, "series_table_bytes": series_size,
            "bytes_per_sample_database": round(db_size / max(written, 1), 2),
            "target_database_gib": 20, "target_ms": {"history": 100, "compare_4": 300},
            "api_ms_median_of_20_warm": {
                "history_page_50": round(hist_ms, 1), "history_sorted_by_rps": round(hist_rps_ms, 1),
                "history_filter_decision_adopted": round(hist_dec_ms, 1),
                "compare_4_experiments": round(cmp_ms, 1),
                "overlay_vmstat_sy_12_runs": round(ov_ms, 1),
                "overlay_nginx_cpu_summed_over_pids_12_runs": round(ov_cpu_ms, 1),
                "overlay_vmstat_sy_max_points_100": round(ov_small_ms, 1),
            },
            "overlay_points_per_series": {"max_points_2000": max(pts), "pidstat_summed": max(pts_cpu),
                                          "max_points_100": max(pts_small),
                                          "downsampled_at_100": bool(ov_small["experiments"][0]["runs"][0]["lines"][0]
                                                                     ["downsampled"])},
            "history_decision_adopted_rows": dec["total"],
            "in_process": "FastAPI TestClient against the real app and database (no network hop)",
        }
        write_result("compare", result)
        print(f"compare bench: history {hist_ms:.0f} ms, compare {cmp_ms:.0f} ms, overlay {ov_ms:.0f} ms "
              f"({max(pts)} points/series), database {db_size / 2**30:.1f} GiB", flush=True)
        if args.keep:
            try:
                input(f"database {url} kept; press Enter to drop it")
            except EOFError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
