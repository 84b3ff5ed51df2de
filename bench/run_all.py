"""`make bench`: every benchmark, each measuring perflab beside a peer in the same run.

Results land in bench/results/<name>.json; this prints one line per benchmark and writes
bench/results/summary.md. The machine is shared and noisy: compare the ratios, not the absolutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

BENCHES = [
    ("parsers", [sys.executable, "bench/parsers_bench.py"]),
    ("profiles", [sys.executable, "bench/profiles_bench.py"]),
    ("profile_view", [sys.executable, "bench/profile_view_bench.py"]),
    ("ingest", [sys.executable, "bench/ingest_bench.py", "--agents", "8", "--seconds", "120", "--per-batch", "30"]),
    # What the agent really sends: a batch a second per stream, so per-request costs dominate.
    ("ingest_live", [sys.executable, "bench/ingest_bench.py", "--agents", "8", "--seconds", "60", "--per-batch", "1",
                     "--name", "ingest_live"]),
    # Issue 20: 40 agents sending live (a batch a second per stream), and 1 vs 2 server processes. This one
    # sends all 40 at the same instant, the worst case; the scale bench's agents each tick at their own.
    ("ingest_live40", [sys.executable, "bench/ingest_bench.py", "--agents", "40", "--seconds", "30", "--per-batch",
                       "1", "--paced", "--phase", "aligned", "--name", "ingest_live40"]),
    ("ingest_scale", [sys.executable, "bench/ingest_scale_bench.py"]),
    # The live 40 agents with 1 and then 2 server processes in the same run (parse workers on, the default),
    # each agent at its own instant of the second, as independent daemons send.
    ("ingest_live40_scale", [sys.executable, "bench/ingest_scale_bench.py", "--live"]),
    ("user_path", [sys.executable, "bench/user_path_bench.py"]),
    ("storage", [sys.executable, "bench/storage_bench.py"]),
    ("agent_overhead", [sys.executable, "bench/agent_overhead_bench.py", "--seconds", "60"]),
    ("compare", [sys.executable, "bench/compare_bench.py"]),
    ("compare_page", [sys.executable, "bench/compare_page_bench.py"]),
    ("flamegraph", ["node", "bench/flamegraph/run.mjs"]),
]


def main() -> int:
    only = set(sys.argv[1:])
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'backend'}"}
    failures = []
    lines = ["# Benchmark results", "", f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", ""]
    for name, cmd in BENCHES:
        if only and name not in only:
            continue
        if not (ROOT / cmd[1]).exists():
            print(f"{name}: missing {cmd[1]}", file=sys.stderr)
            failures.append(name)
            continue
        print(f"== {name}: {' '.join(cmd[1:])}", flush=True)
        t0 = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env)
        took = time.monotonic() - t0
        if proc.returncode != 0:
            failures.append(name)
            continue
        path = RESULTS / f"{name}.json"
        if path.exists():
            lines += [f"## {name} ({took:.0f} s)", "", "```json", json.dumps(json.loads(path.read_text()), indent=2),
                      "```", ""]
    (RESULTS / "summary.md").write_text("\n".join(lines))
    if failures:
        print(f"failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    print(f"results in {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
