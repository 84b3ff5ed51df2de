"""Ingest throughput with 1 and then 2 server processes on one database, in the same run.

The same 8 simulated agents (vmstat + pidstat of 24 processes, 30 s of lines a request) alternate
between the servers as behind a round-robin load balancer. Target (issue 20): 2 processes / 1 >= 1.7.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from bench.common import write_result
from bench.ingest_bench import run


def main() -> int:
    results = {}
    for servers in (1, 2):
        args = argparse.Namespace(agents=8, seconds=120, per_batch=30, procs=24, servers=servers, paced=False,
                                  name=f"ingest_{servers}_servers")
        results[servers] = run(args)
    ratio = results[2]["samples_per_s"] / results[1]["samples_per_s"]
    write_result("ingest_scale", {
        "one_server_samples_per_s": results[1]["samples_per_s"],
        "two_servers_samples_per_s": results[2]["samples_per_s"],
        "ratio_2_to_1": round(ratio, 2), "target_ratio": 1.7,
        "runs": {str(k): v for k, v in results.items()},
    })
    print(f"ingest with 2 server processes / 1: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
