"""Ingest throughput: simulated agents post realistic vmstat + pidstat batches to a real server.

Reports samples stored per second (parsed and committed as series chunks) and the ratio to a raw COPY
of the same samples as one row each (run_id, series_id, t, value, with the primary key the old
`sample` table had), measured in the same run on the same database.
Target (issue 13): ratio >= 3.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from bench.common import bench_database, write_result
from tests.system.harness import Server

VMSTAT = ROOT / "tests/fixtures/captures/nginx-proxy-buffers/default/run1/vmstat.txt"
PIDSTAT_HEADER = ("# Time        UID       PID    %usr %system  %guest   %wait    %CPU   CPU  minflt/s  majflt/s"
                  "     VSZ     RSS   %MEM   cswch/s nvcswch/s  Command")


def pidstat_lines(seconds: int, procs: int) -> list[str]:
    """`pidstat -h -u -w -r -C nginx 1` shaped lines: one per process per second."""
    out = ["Linux 6.1.0 (bench) \t11/22/26 \t_x86_64_\t(2 CPU)", "", PIDSTAT_HEADER]
    for s in range(seconds):
        hh, mm, ss = 2, (s // 60) % 60, s % 60
        for p in range(procs):
            out.append(f"{hh:02d}:{mm:02d}:{ss:02d}    65534 {7000 + p:9d}   {p % 40 + 1.5:5.2f}   {20 + p % 7:5.2f}"
                       f"    0.00   {p % 9:5.2f}   {30 + p % 50:5.2f}     {p % 2}      0.00      0.00  "
                       f"{12000 + p:6d}  {8000 + p:6d}   0.03   {7900 + p:7.2f}   {3100 + p:7.2f}  nginx")
    return out


def vmstat_lines(seconds: int) -> list[str]:
    src = VMSTAT.read_text().splitlines()
    header, rows = src[:2], [ln for ln in src[2:] if ln.strip()[:1].isdigit()]
    return header + [rows[i % len(rows)] for i in range(seconds)]


def post(url: str, token: str, body: dict) -> float:  # type: ignore[type-arg]
    """Seconds until the answer (the batch committed and parsed)."""
    data = gzip.compress(json.dumps(body).encode(), 1)
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", "Content-Encoding": "gzip"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()
    return time.perf_counter() - t0


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] if ordered else 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", type=int, default=8)
    ap.add_argument("--seconds", type=int, default=60, help="seconds of data each agent sends")
    ap.add_argument("--per-batch", type=int, default=10, help="seconds of lines per batch (a spool catching up)")
    ap.add_argument("--procs", type=int, default=24, help="nginx processes in pidstat")
    ap.add_argument("--name", default="ingest", help="result file name (bench/results/NAME.json)")
    ap.add_argument("--servers", type=int, default=1, help="server processes on the one database (agents alternate)")
    ap.add_argument("--paced", action="store_true",
                    help="each agent sends a batch per --per-batch seconds of wall time, as live agents do")
    ap.add_argument("--parse-workers", action="store_true",
                    help="PERFLAB_PARSE_WORKERS=true: answers after the raw insert; throughput counts until parsed")
    args = ap.parse_args()
    result = run(args)
    write_result(args.name, result)
    return 0


def run(args: argparse.Namespace) -> dict:  # type: ignore[type-arg]

    with bench_database("ingest") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        os.environ["PERFLAB_PARSE_WORKERS"] = "true" if getattr(args, "parse_workers", False) else "false"
        from perflab import db
        from perflab.cli import migrate
        from perflab.db import unit_of_work
        from perflab.projects import service as projects
        from perflab.tokens import service as tokens

        migrate(url)
        # A fresh engine per database: ingest_scale_bench runs this twice in one process.
        db.set_engine(db.make_engine(url))
        with unit_of_work() as s:
            project = projects.create_project(s, name="bench")
            token, _ = tokens.create_token(s, project=project, name="bench", scopes=["ingest", "read"])
        servers = [Server(url, Path(tempfile.mkdtemp(prefix="perflab-bench-"))) for _ in range(args.servers)]
        for one in servers:
            one.start()
        server = servers[0]
        try:
            runs = []
            for a in range(args.agents):
                run_id = str(uuid.uuid4())
                post(f"{server.url}/api/agent/hello", token, {"agent_id": f"bench-agent-{a:04d}",
                                                                "hostname": f"h{a}", "role": "proxy"})
                req = urllib.request.Request(f"{server.url}/api/agent/runs", method="POST",
                                             data=json.dumps({"run_id": run_id, "experiment": "bench",
                                                              "wait_for_roles": []}).encode(),
                                             headers={"Authorization": f"Bearer {token}",
                                                      "Content-Type": "application/json"})
                urllib.request.urlopen(req).read()
                runs.append(run_id)
            vm = vmstat_lines(args.seconds)
            pid = pidstat_lines(args.seconds, args.procs)
            t0 = time.time()

            def batches(run_id: str) -> list[dict]:  # type: ignore[type-arg]
                out = []
                per = args.per_batch
                vm_body, pid_body = vm[2:], pid[3:]
                for seq, start in enumerate(range(0, args.seconds, per), start=1):
                    vlines = (vm[:2] if seq == 1 else []) + vm_body[start:start + per]
                    plines = (pid[:3] if seq == 1 else []) + pid_body[start * args.procs:(start + per) * args.procs]
                    ts = lambda lines, base: [[t0 + base + i / max(len(lines), 1) * per, 0.0, ln]
                                              for i, ln in enumerate(lines)]
                    out.append({"agent_id": "x", "batches": [
                        {"run_id": run_id, "stream": "vmstat", "source": "vmstat", "role": "proxy", "seq": seq,
                         "lines": ts(vlines, start)},
                        {"run_id": run_id, "stream": "pidstat:nginx", "source": "pidstat", "role": "proxy",
                         "seq": seq, "lines": ts(plines, start)}]})
                return out

            work = {r: batches(r) for r in runs}
            errors: list[str] = []
            latencies: list[float] = []

            def agent(i: int, run_id: str) -> None:
                # Agents alternate between the servers, as behind a round-robin load balancer.
                target = servers[i % len(servers)].url
                begin = time.perf_counter()
                try:
                    for n, body in enumerate(work[run_id]):
                        if args.paced:
                            time.sleep(max(0.0, begin + n * args.per_batch - time.perf_counter()))
                        body["agent_id"] = f"bench-agent-{i:04d}"
                        latencies.append(post(f"{target}/api/ingest/batches", token, body))
                except Exception as exc:  # noqa: BLE001 - reported below
                    errors.append(repr(exc))

            threads = [threading.Thread(target=agent, args=(i, r)) for i, r in enumerate(runs)]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            answered = time.perf_counter() - start
            if errors:
                raise SystemExit(f"ingest errors: {errors[:3]}")
            from perflab.series import codec
            from perflab.series.service import read_points
            from sqlalchemy import text

            # With parse workers the last answer comes before the last parse: the run counts until parsed.
            max_lag = 0
            while True:
                with unit_of_work() as s:
                    lag = int(s.execute(text("SELECT coalesce(sum(max_seq - parsed_seq), 0) FROM stream")).scalar()
                              or 0)
                max_lag = max(max_lag, lag)
                if not lag:
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - start

            with unit_of_work() as s:
                keys = s.execute(text("SELECT run_id, id FROM series")).all()
                points = read_points(s, [(k[0], k[1]) for k in keys])
                rows = [(run_id, sid, codec.from_us(t), v) for (run_id, sid), (ts, vs) in points.items()
                        for t, v in zip(ts, vs, strict=True)]
                stored = len(rows)
        finally:
            for one in servers:
                one.stop()

        # Baseline: COPY the very same samples, one row each, into a table shaped like the old `sample`.
        engine = db.make_engine(url)
        with engine.begin() as conn:
            from sqlalchemy import text

            conn.execute(text("CREATE TABLE sample_peer (run_id uuid, series_id bigint, t timestamptz,"
                              " value double precision, PRIMARY KEY (run_id, series_id, t))"))
        raw = engine.raw_connection()
        try:
            buf = io.StringIO()
            for r in rows:
                buf.write(f"{r[0]}\t{r[1]}\t{r[2].isoformat()}\t{r[3]!r}\n")
            payload = buf.getvalue()
            c0 = time.perf_counter()
            with (
                raw.driver_connection.cursor() as cur,  # type: ignore[union-attr]
                cur.copy("COPY sample_peer (run_id, series_id, t, value) FROM STDIN") as cp,
            ):
                cp.write(payload)
            raw.commit()
            copy_s = time.perf_counter() - c0
        finally:
            raw.close()
        engine.dispose()
        db.get_engine().dispose()

    ours = stored / elapsed
    copy_rate = len(rows) / copy_s
    result = {
        "agents": args.agents, "seconds_of_data": args.seconds, "lines_per_batch_s": args.per_batch,
        "pidstat_processes": args.procs, "samples_stored": stored, "elapsed_s": round(elapsed, 3),
        "samples_per_s": round(ours), "copy_samples_per_s": round(copy_rate),
        "ratio_vs_copy": round(ours / copy_rate, 3), "target_ratio": 3,
        "servers": args.servers, "paced": args.paced, "batch_answers": len(latencies),
        "parse_workers": bool(getattr(args, "parse_workers", False)),
        # Inline: a batch is parsed before its answer (the answer time bounds the parse lag). Workers:
        # parsing finished this long after the last answer.
        "answers_done_s": round(answered, 3), "parsed_after_last_answer_s": round(elapsed - answered, 3),
        "answer_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "answer_p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "answer_max_ms": round(max(latencies, default=0.0) * 1000, 1),
    }
    print(f"ingest: {ours:,.0f} samples/s stored ({stored:,} in {elapsed:.1f} s by {args.agents} agents, "
          f"{args.servers} server(s)); raw COPY of the same rows {copy_rate:,.0f}/s; ratio {ours / copy_rate:.2f}; "
          f"answers p50 {result['answer_p50_ms']} ms p99 {result['answer_p99_ms']} ms; "
          f"parsed {elapsed - answered:.2f} s after the last answer", flush=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
