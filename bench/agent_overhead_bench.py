"""Agent overhead: the daemon streaming vmstat + pidstat:nginx at 1 Hz during a 60 s run, measured from
/proc, beside prometheus-node-exporter (scraped once a second, as Prometheus would) in the same run.

Target (issue 4): agent process <= 1% of one core and <= 30 MB RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend")]

from perflab.demo import NginxPair

from bench.common import bench_database, write_result
from tests.system.harness import Agent, Server, free_port

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime of the process itself


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(pids: dict[str, int], seconds: float) -> dict[str, dict[str, float]]:
    start = {k: cpu_seconds(p) for k, p in pids.items()}
    peak = {k: 0 for k in pids}
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        for k, p in pids.items():
            peak[k] = max(peak[k], rss_kb(p))
        time.sleep(1)
    wall = time.monotonic() - t0
    return {k: {"cpu_pct_of_one_core": round(100 * (cpu_seconds(p) - start[k]) / wall, 3),
                "max_rss_mb": round(peak[k] / 1024, 1)} for k, p in pids.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=60)
    args = ap.parse_args()
    exporter = shutil.which("prometheus-node-exporter")
    if exporter is None:
        raise SystemExit("prometheus-node-exporter is missing: scripts/system-deps.sh bench installs it")
    with bench_database("agent") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        from perflab.cli import migrate

        from tests.system.harness import make_project_and_token

        migrate(url)
        token = make_project_and_token("bench")
        work = Path(tempfile.mkdtemp(prefix="perflab-bench-agent-"))
        os.chmod(work, 0o755)
        server = Server(url, work / "home")
        server.start()
        pair = NginxPair(work / "nginx", upstream_port=free_port(), proxy_port=free_port())
        (work / "nginx").mkdir()
        pair.start()
        agent = Agent(server, token, work / "agent")
        exp_port = free_port()
        node_exporter = subprocess.Popen([exporter, f"--web.listen-address=127.0.0.1:{exp_port}"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stop = threading.Event()

        def scrape() -> None:
            while not stop.is_set():
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{exp_port}/metrics", timeout=5).read()
                except OSError:
                    pass
                stop.wait(1)

        try:
            daemon = agent.daemon("--role", "proxy", "--collect", "vmstat", "--collect", "pidstat:nginx")
            time.sleep(3)
            scraper = threading.Thread(target=scrape, daemon=True)
            scraper.start()
            run = threading.Thread(target=agent.run, args=(
                "--project", "bench", "--experiment", "overhead", "--wait-for", "proxy", "--json", "--",
                "sleep", str(args.seconds + 10)), kwargs={"timeout": args.seconds + 120})
            run.start()
            time.sleep(5)  # collectors started
            figures = measure({"perflab_agent": daemon.pid, "node_exporter": node_exporter.pid}, args.seconds)
            run.join()
        finally:
            stop.set()
            agent.stop_daemon()
            node_exporter.terminate()
            pair.stop()
            server.stop()
            shutil.rmtree(work, ignore_errors=True)
    a, n = figures["perflab_agent"], figures["node_exporter"]
    result = {
        "seconds": args.seconds, "agent": a, "node_exporter": n,
        "cpu_ratio_agent_to_node_exporter": round(a["cpu_pct_of_one_core"] / max(n["cpu_pct_of_one_core"], 1e-9), 2),
        "rss_ratio_agent_to_node_exporter": round(a["max_rss_mb"] / max(n["max_rss_mb"], 1e-9), 2),
        "targets": {"cpu_pct_of_one_core": 1.0, "max_rss_mb": 30},
        "note": "agent process alone (its vmstat/pidstat children are the tools being run, not agent overhead)",
    }
    write_result("agent_overhead", result)
    print(f"agent: {a['cpu_pct_of_one_core']}% of a core, {a['max_rss_mb']} MB RSS; "
          f"node_exporter (scraped 1/s): {n['cpu_pct_of_one_core']}%, {n['max_rss_mb']} MB")
    print(json.dumps(result["targets"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
