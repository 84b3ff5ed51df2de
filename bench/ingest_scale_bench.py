"""Ingest with 1 and then 2 server processes on one database, in the same run, parse workers on.

Default: throughput. The same 8 simulated agents (vmstat + pidstat of 24 processes, 30 s of lines a
request) alternate between the servers as behind a round-robin load balancer; samples/s count until
parsed. Target (issue 20): 2 processes / 1 >= 1.7.

--live: 40 agents each sending a batch a second per stream, paced as live agents do: each at its own
instant of the second (a daemon's batcher ticks from the daemon's start; --phase aligned sends all 40 at
once, the worst case, which `ingest_live40` measures). Targets (issue 20): answers p99 <= 200 ms and parse
lag <= 2 s, with 1 and with 2 server processes.
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
    ap = argparse.ArgumentParser()
    ap.add_argument("--live", action="store_true", help="40 paced agents, a batch a second (default: throughput)")
    ap.add_argument("--seconds", type=int, default=None, help="seconds of data each agent sends")
    ap.add_argument("--phase", choices=("aligned", "spread"), default="spread", help="see ingest_bench.py --phase")
    options = ap.parse_args()
    live = options.live
    seconds = options.seconds or (30 if live else 120)
    name = "ingest_live40_scale" if live else "ingest_scale"
    results = {}
    for servers in (1, 2):
        args = argparse.Namespace(agents=40 if live else 8, seconds=seconds, per_batch=1 if live else 30, procs=24,
                                  servers=servers, paced=live, phase=options.phase, inline_parse=False,
                                  name=f"{name}_{servers}_servers")
        results[servers] = run(args)
    ratio = results[2]["samples_per_s"] / results[1]["samples_per_s"]
    summary = {
        "one_server_samples_per_s": results[1]["samples_per_s"],
        "two_servers_samples_per_s": results[2]["samples_per_s"],
        "ratio_2_to_1": round(ratio, 2),
        "runs": {str(k): v for k, v in results.items()},
    }
    if live:
        summary.update({f"{k}_{n}_servers": results[n][k] for n in (1, 2)
                        for k in ("answer_p50_ms", "answer_p99_ms", "parse_lag_p99_s", "parse_lag_max_s")})
        summary.update({"phase": options.phase, "target_answer_p99_ms": 200, "target_parse_lag_s": 2})
        print("live ingest, 40 agents: " + "; ".join(
            f"{n} server(s) answers p99 {results[n]['answer_p99_ms']} ms, parse lag max {results[n]['parse_lag_max_s']} s"
            for n in (1, 2)))
    else:
        summary["target_ratio"] = 1.7
        print(f"ingest with 2 server processes / 1: {ratio:.2f}x")
    write_result(name, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
