"""Storage and import (issue 13): bytes per stored sample, all in, and import time against parsing.

A realistic 10 MB `vmstat -t 1` log (a loaded host: noisy interrupts and context switches, memory
drifting, CPU shares summing to 100; 120,000 lines, about 2 million samples) is
  - parsed by `perflab parse vmstat FILE > /dev/null` (the peer, best of 3), and
  - imported through a real `perflab serve` (HTTP, gzip body, as `perflab-agent import` sends it).
Reported: import / parse time; the database growth (every relation's size after VACUUM, before and
after) plus the bytes added under the data directory, per stored sample; and the bytes each part
(raw text, series chunks, series rows) takes. Targets: <= 12 bytes a sample, import <= 2x parse.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from bench.common import bench_database, write_result
from tests.system.harness import Server

HEADER = [
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu----- -----timestamp-----",
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC",
]


def vmstat_log(path: Path, target_bytes: int, seed: int = 13) -> int:
    """A loaded host sampled every second: returns the number of lines written."""
    rng = random.Random(seed)
    t = datetime(2026, 11, 22, 2, 0, 0, tzinfo=UTC)
    free, buff, cache = 23_843_440, 8_532, 589_072
    lines = list(HEADER)
    size = sum(len(x) + 1 for x in lines)
    while size < target_bytes:
        free = max(1_000_000, free + rng.randint(-4096, 4096))
        buff += rng.choice((0, 0, 0, 4))
        cache = max(100_000, cache + rng.randint(-64, 256))
        r, b = rng.randint(0, 6), rng.choice((0, 0, 0, 1))
        bi, bo = rng.choice((0, 0, 96, 792, 1174)), rng.choice((0, 0, 0, 8, 1467))
        intr, cs = rng.randint(60_000, 100_000), rng.randint(130_000, 210_000)
        us, sy = rng.randint(3, 16), rng.randint(30, 55)
        wa, st = rng.choice((0, 0, 0, 1)), 0
        idle = 100 - us - sy - wa - st
        line = (f"{r:2d} {b:2d} {0:6d} {free:8d} {buff:6d} {cache:6d} {0:4d} {0:4d} {bi:5d} {bo:5d} {intr:5d} "
                f"{cs:6d} {us:2d} {sy:2d} {idle:2d} {wa:2d} {st:2d} {t:%Y-%m-%d %H:%M:%S}")
        lines.append(line)
        size += len(line) + 1
        t += timedelta(seconds=1)
    path.write_text("\n".join(lines) + "\n")
    return len(lines)


def parse_time(path: Path, repeat: int) -> float:
    best = float("inf")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "backend")}
    for _ in range(repeat):
        t = time.perf_counter()
        with open(os.devnull, "wb") as null:
            subprocess.run([str(Path(sys.executable).parent / "perflab"), "parse", "vmstat", str(path)], stdout=null,
                           env=env, check=True)
        best = min(best, time.perf_counter() - t)
    return best


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def relation_bytes(conn: Any) -> dict[str, int]:
    from sqlalchemy import text

    rows = conn.execute(text(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND c.relkind = 'r'")).all()
    return {name: int(size) for name, size in rows}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=10.0, help="size of the vmstat log")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="perflab-bench-storage-"))
    log = work / "vmstat.txt"
    nlines = vmstat_log(log, int(args.mb * 1e6))
    parse_s = parse_time(log, args.repeat)

    with bench_database("storage") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        from perflab import db
        from perflab.cli import migrate
        from perflab.db import unit_of_work
        from perflab.projects import service as projects
        from perflab.tokens import service as tokens
        from sqlalchemy import text

        migrate(url)
        with unit_of_work() as s:
            project = projects.create_project(s, name="bench")
            slug = project.slug
            token, _ = tokens.create_token(s, project=project, name="bench", scopes=["ingest", "read"])
        engine = db.make_engine(url)
        home = work / "home"
        server = Server(url, home)
        server.start()
        try:
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text("VACUUM"))
                before = relation_bytes(c)
            files_before = dir_bytes(home)
            body = gzip.compress(json.dumps({"experiment": "storage", "files": [
                {"name": "vmstat.txt", "content": log.read_text(), "role": "proxy", "kind": "vmstat"}]}).encode(), 1)
            imports: list[float] = []
            run_id = None
            for i in range(args.repeat):
                if run_id is not None:
                    # Measure each import on the same empty project: the previous run goes first.
                    with engine.begin() as c:
                        c.execute(text("DELETE FROM run WHERE id = :r"), {"r": run_id})
                        c.execute(text("DELETE FROM experiment"))
                    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                        c.execute(text("VACUUM FULL"))
                        before = relation_bytes(c)
                    files_before = dir_bytes(home)
                req = urllib.request.Request(
                    f"{server.url}/api/projects/{slug}/imports", data=body, method="POST",
                    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                             "Content-Encoding": "gzip"})
                t = time.perf_counter()
                with urllib.request.urlopen(req, timeout=600) as r:
                    reply = json.loads(r.read())
                imports.append(time.perf_counter() - t)
                run_id = reply["run_id"]
                print(f"  import {i + 1}: {imports[-1]:.2f} s", flush=True)
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                c.execute(text("VACUUM"))
                after = relation_bytes(c)
                samples = int(c.execute(text("SELECT sum(n) FROM series_chunk")).scalar() or 0)
                raw_gz = int(c.execute(text("SELECT sum(length(data_gz)) FROM raw_chunk")).scalar() or 0)
                chunk_data = int(c.execute(text(
                    "SELECT sum(length(vals) + coalesce(length(times), 0)) FROM series_chunk")).scalar() or 0)
            files_after = dir_bytes(home)
        finally:
            server.stop()
            engine.dispose()

    growth = {k: after.get(k, 0) - before.get(k, 0) for k in after if after.get(k, 0) != before.get(k, 0)}
    db_growth = sum(growth.values())
    files = max(0, files_after - files_before)
    import_s = min(imports)
    per_sample = (db_growth + files) / max(samples, 1)
    result = {
        "log": {"bytes": log.stat().st_size, "lines": nlines, "samples_stored": samples},
        "parse_s_best": round(parse_s, 3), "import_s_best": round(import_s, 3),
        "import_runs_s": [round(x, 3) for x in imports],
        "import_over_parse": round(import_s / parse_s, 2), "target_import_over_parse": 2,
        "bytes_per_sample_all_in": round(per_sample, 2), "target_bytes_per_sample": 12,
        "database_growth_bytes": db_growth, "data_dir_growth_bytes": files,
        "growth_by_table": dict(sorted(growth.items(), key=lambda kv: -kv[1])),
        "raw_text_gzip_bytes": raw_gz, "series_chunk_payload_bytes": chunk_data,
        "previously": {"bytes_per_sample_all_in": 163, "import_over_parse": 14},
    }
    write_result("storage", result)
    print(f"storage: {per_sample:.2f} bytes/sample all in ({samples:,} samples: database +{db_growth / 1e6:.1f} MB, "
          f"files +{files / 1e6:.1f} MB); import {import_s:.2f} s vs parse {parse_s:.2f} s = "
          f"{import_s / parse_s:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
