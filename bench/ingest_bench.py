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
import random
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


def encode(body: dict) -> bytes:  # type: ignore[type-arg]
    """A request body as the agent sends it: JSON, gzip level 1."""
    return gzip.compress(json.dumps(body).encode(), 1)


def post(url: str, token: str, body: dict | bytes) -> float:  # type: ignore[type-arg]
    """Seconds until the answer (the batch committed; parsed too when parsing is inline)."""
    data = body if isinstance(body, bytes) else encode(body)
    req = urllib.request.Request(url, data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json", "Content-Encoding": "gzip"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()
    return time.perf_counter() - t0


class CpuMeter:
    """CPU seconds of the server processes, of their children (a serve's parse process), of one database's
    PostgreSQL backends and of this process since it was made (children and backends are sampled as they
    come and go; one started later counts from zero)."""

    def __init__(self, server_pids: list[int], url: str) -> None:
        import psutil  # type: ignore[import-untyped]

        self.psutil = psutil
        self.conninfo = url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.database = url.rsplit("/", 1)[-1].split("?", 1)[0]
        self.t0 = time.time()
        self.servers = [psutil.Process(pid) for pid in server_pids]
        self.me = psutil.Process()
        self.base = {"servers": self._servers(), "agents": self._me()}
        self.backends: dict[int, tuple[float, float]] = {}  # pid -> (first reading, last reading)
        self.children: dict[int, tuple[float, float]] = {}
        self.sample()

    def _servers(self) -> float:
        return sum(sum(p.cpu_times()[:2]) for p in self.servers)

    def _me(self) -> float:
        return float(sum(self.me.cpu_times()[:2]))

    def _track(self, seen: dict[int, tuple[float, float]], pid: int) -> None:
        try:
            proc = self.psutil.Process(pid)
            used = float(sum(proc.cpu_times()[:2]))
            first = used if proc.create_time() < self.t0 else 0.0
        except self.psutil.Error:
            return
        seen[pid] = (seen.get(pid, (first, 0.0))[0], used)

    def sample(self) -> None:
        import psycopg

        for server in self.servers:
            try:
                kids = server.children(recursive=True)
            except self.psutil.Error:
                continue
            for kid in kids:
                self._track(self.children, kid.pid)

        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            pids = [r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s",
                                               (self.database,))]
        for pid in pids:
            self._track(self.backends, pid)

    def totals(self) -> dict[str, float]:
        return {"servers": round(self._servers() - self.base["servers"], 2),
                "server_children": round(sum(last - first for first, last in self.children.values()), 2),
                "postgres": round(sum(last - first for first, last in self.backends.values()), 2),
                "agents": round(self._me() - self.base["agents"], 2)}


def wait_for_parse_workers(url: str, count: int, timeout: float = 60.0) -> None:
    """Until each server's parse process is connected: a server answers before its parse process has
    started (an interpreter importing the parsers, ~1-2 s), and a team's servers run long before agents
    send. Without this, the second server's parser joined the throughput run 1.2 s late."""
    import psycopg
    from perflab.ingest.workers import APPLICATION_NAME

    conninfo = url.replace("postgresql+psycopg://", "postgresql://", 1)
    deadline = time.monotonic() + timeout
    while True:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            seen = conn.execute("SELECT count(DISTINCT pid) FROM pg_stat_activity WHERE datname = current_database()"
                                " AND application_name = %s AND query LIKE 'LISTEN%%'", (APPLICATION_NAME,)).fetchone()
        if seen is not None and seen[0] >= count:
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"only {seen[0] if seen else 0} of {count} parse processes connected in {timeout:.0f} s")
        time.sleep(0.1)


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
    ap.add_argument("--phase", choices=("aligned", "spread"), default="aligned",
                    help="paced agents: all send at the same instant (aligned: the worst case, daemons started "
                         "in the same millisecond) or each at its own instant within the period (spread: a "
                         "daemon's batcher ticks from the daemon's own start, so independent daemons are)")
    ap.add_argument("--inline-parse", action="store_true",
                    help="PERFLAB_PARSE_WORKERS=false: each request parses its batch before answering (the default is "
                         "parse workers: answers after the raw insert; throughput counts until parsed)")
    args = ap.parse_args()
    result = run(args)
    write_result(args.name, result)
    return 0


def run(args: argparse.Namespace) -> dict:  # type: ignore[type-arg]

    with bench_database("ingest") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        workers_on = not getattr(args, "inline_parse", False)
        os.environ["PERFLAB_PARSE_WORKERS"] = "true" if workers_on else "false"
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
        if workers_on:
            wait_for_parse_workers(url, len(servers))
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

            # Encoded before the clock starts, as an agent's spool holds its batches ready: 40 threads
            # encoding in this one interpreter while others wait for answers would time the load
            # generator's GIL, not the server.
            work = {r: [encode({**body, "agent_id": f"bench-agent-{i:04d}"}) for body in batches(r)]
                    for i, r in enumerate(runs)}
            errors: list[str] = []
            latencies: list[float] = []

            # Where in the period each agent sends: a seeded uniform draw, the same in every run.
            draw = random.Random(20261127)
            phases = [draw.uniform(0, args.per_batch) if args.phase == "spread" else 0.0 for _ in runs]

            def agent(i: int, run_id: str) -> None:
                # Agents alternate between the servers, as behind a round-robin load balancer.
                target = servers[i % len(servers)].url
                begin = start + phases[i]
                try:
                    for n, body in enumerate(work[run_id]):
                        if args.paced:
                            time.sleep(max(0.0, begin + n * args.per_batch - time.perf_counter()))
                        latencies.append(post(f"{target}/api/ingest/batches", token, body))
                except Exception as exc:  # noqa: BLE001 - reported below
                    errors.append(repr(exc))

            # Parse lag as the run page shows it: the age of the oldest received, unparsed chunk, sampled
            # twice a second while the agents send (what a viewer of any run would see at worst).
            lags: list[float] = []
            sending = threading.Event()

            # Where the CPU goes while they send: the server processes, this database's PostgreSQL backends
            # (the machine's server is shared: only backends of this database count) and the agents (this process).
            cpu = CpuMeter([one.proc.pid for one in servers if one.proc is not None], url)

            def sample_lag() -> None:
                from sqlalchemy import text as sql

                while not sending.wait(0.5):
                    with unit_of_work() as s:
                        lags.append(float(s.execute(sql(
                            "SELECT coalesce(extract(epoch FROM clock_timestamp() - min(c.received_at)), 0)"
                            " FROM stream st JOIN raw_chunk c ON c.run_id = st.run_id AND c.stream_id = st.id"
                            " AND c.seq > st.parsed_seq WHERE st.parsed_seq < st.max_seq")).scalar() or 0.0))
                    cpu.sample()

            threads = [threading.Thread(target=agent, args=(i, r)) for i, r in enumerate(runs)]
            sampler = threading.Thread(target=sample_lag)
            start = time.perf_counter()
            sampler.start()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            answered = time.perf_counter() - start
            sending.set()
            sampler.join()
            cpu.sample()
            cpu_s = cpu.totals()
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
        "servers": args.servers, "paced": args.paced, "phase": args.phase if args.paced else None,
        "batch_answers": len(latencies),
        "parse_workers": workers_on,
        "parse_lag_p50_s": round(percentile(lags, 50), 3), "parse_lag_p99_s": round(percentile(lags, 99), 3),
        "parse_lag_max_s": round(max(lags, default=0.0), 3),
        # CPU seconds used while the agents sent, and as a share of the machine's cores over that time.
        "cpu_s_while_sending": cpu_s,
        "cpu_share_of_machine": {k: round(v / (answered * (os.cpu_count() or 1)), 3) for k, v in cpu_s.items()},
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
          f"parse lag p50 {result['parse_lag_p50_s']} s p99 {result['parse_lag_p99_s']} s; "
          f"parsed {elapsed - answered:.2f} s after the last answer", flush=True)
    return result


if __name__ == "__main__":
    sys.exit(main())
