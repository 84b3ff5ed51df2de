"""Profile view benchmark (issue 21): GET /api/profiles/{id}/diff of two stored profiles against a real
server, beside its peers measured in the same run: GET /tree of each of the two profiles.

    .venv/bin/python bench/profile_view_bench.py [--repeat 5]

Inputs are the memory budget test's shapes (tests/system/test_memory_budget.py), uploaded gzip-compressed
as that test sends them: "deep" at 64 MB (4,096-frame stacks sharing their prefix: 64 MB of text, a
7,000-node tree) and "wide" at 1 MB (a node per line: 95,000 nodes). Timed, alternating, best of
--repeat (the machine is shared; the best run is the least disturbed): the diff deep-64 / wide-1 (the
memory budget test's), the same the other way round, and the /tree of each. Peers: the /tree of
deep-64, the larger upload (its small tree is viewed in the request's thread), and the /tree of
wide-1, the larger tree (viewed in a parser process like the diff: the ratio to it is what merging a
second tree adds to viewing one). Also recorded: /api/health's worst answer during each view.
Results: bench/results/profile_view.json.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from bench.common import agent_server, write_result
from tests.system.test_http_hardening import HealthWatch
from tests.system.test_memory_budget import MB, PROFILE_SHAPES


def _request(url: str, token: str, data: bytes | None = None) -> bytes:
    req = urllib.request.Request(url, data=data, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return bytes(r.read())


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    import json

    with tempfile.TemporaryDirectory(prefix="perflab-bench-view-") as tmp, \
            agent_server("profileview", Path(tmp) / "home") as (server, token, run_id):
        ids: dict[str, str] = {}
        for shape, mb in (("deep", 64), ("wide", 1)):
            body = gzip.compress(PROFILE_SHAPES[shape](mb * MB).encode(), compresslevel=6)
            name = f"{shape}-{mb}"
            answer = _request(f"{server.url}/api/runs/{run_id}/profiles?name={name}", token, body)
            ids[name] = json.loads(answer)["profile_id"]
        api = f"{server.url}/api/profiles"
        views = {
            "tree wide-1": f"{api}/{ids['wide-1']}/tree",
            "tree deep-64": f"{api}/{ids['deep-64']}/tree",
            "diff deep-64 / wide-1": f"{api}/{ids['deep-64']}/diff?other={ids['wide-1']}",
            "diff wide-1 / deep-64": f"{api}/{ids['wide-1']}/diff?other={ids['deep-64']}",
        }
        for link in views.values():  # warm up: the parser pool's fork server starts on first use
            _request(link, token)
        runs: dict[str, list[float]] = {k: [] for k in views}
        health: dict[str, float] = dict.fromkeys(views, 0.0)
        size: dict[str, int] = {}
        for _ in range(args.repeat):
            for key, link in views.items():
                with HealthWatch(server.url, timeout_s=60, interval_s=0.02) as hw:
                    t0 = time.perf_counter()
                    size[key] = len(_request(link, token))
                    runs[key].append(time.perf_counter() - t0)
                health[key] = max(health[key], hw.worst)
    # Two peers: the /tree of the larger upload (deep-64: a small tree, viewed in the request's
    # thread) and of the larger tree (wide-1: viewed in a parser process, like the diff).
    peers = {"tree deep-64": min(runs["tree deep-64"]), "tree wide-1": min(runs["tree wide-1"])}
    out: dict[str, Any] = {"repeat": args.repeat, "peers": list(peers), "views": {}}
    for key, times in runs.items():
        best = min(times)
        out["views"][key] = {
            "s": round(best, 3), "runs_s": [round(t, 3) for t in times], "answer_kb": size[key] // 1000,
            **{f"ratio_to_{peer.replace(' ', '_')}": round(best / t, 2) for peer, t in peers.items()},
            "health_worst_s": round(health[key], 3)}
        print(f"{key}: {best:.3f} s ({best / peers['tree deep-64']:.1f}x the /tree of deep-64, "
              f"{best / peers['tree wide-1']:.2f}x the /tree of wide-1), {size[key] // 1000} KB, "
              f"health worst {health[key]:.2f} s", flush=True)
    out["note"] = ("GET against a real `perflab serve` (profiles uploaded gzip-compressed, views read from the call tree "
                   "stored at upload, in a parser process past 64 KB of stored tree); best of --repeat, alternated. "
                   "Peers: GET /tree of deep-64 (the larger upload) and of wide-1 (95,000 nodes, the larger tree).")
    path = write_result("profile_view", out)
    print(f"results in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
