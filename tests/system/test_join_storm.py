"""A daemon joining ~70 waiting runs at once must not starve the server (issue 9, the join deadlock).

Before the fix every join and every request of the same token updated one hot row (the host's
last_seen_at, the token's last_used_at) and held that lock until its transaction ended, so the 70
concurrent joins queued on each other, filled the 30-connection pool and the thread pool, and
/api/health timed out for minutes.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tests.system.harness import Agent, Server, get_json, make_project_and_token, wait_for

RUNS = 70


def _post(url: str, token: str, body: dict[str, Any]) -> int:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return int(r.status)


def test_a_daemon_joining_70_waiting_runs_keeps_health_fast(database_url: str, db_engine: Any,
                                                              tmp_path: Path) -> None:
    token = make_project_and_token("storm")
    server = Server(database_url, tmp_path / "home")
    server.start()
    agent = Agent(server, token, tmp_path / "proxy-agent")
    slowest: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(f"{server.url}/api/health", timeout=10) as r:
                    assert r.status == 200
                slowest.append(time.monotonic() - t0)
            except OSError:
                slowest.append(float("inf"))
            time.sleep(0.1)

    try:
        run_ids = [str(uuid.uuid4()) for _ in range(RUNS)]
        for n, run_id in enumerate(run_ids):
            assert _post(f"{server.url}/api/agent/runs", token,
                         {"run_id": run_id, "experiment": f"e{n % 5}", "wait_for_roles": ["proxy"]}) == 201
        prober = threading.Thread(target=probe)
        prober.start()
        agent.daemon("--role", "proxy")

        def joined() -> bool:
            hosts = [get_json(f"{server.url}/api/agent/runs/{r}", token)["missing_roles"] for r in run_ids]
            return all(not missing for missing in hosts)

        t_daemon = time.monotonic()
        wait_for(joined, 60, "the daemon to join all 70 runs")
        joined_after = time.monotonic() - t_daemon
        # Keep probing a little while the daemon polls and heartbeats with 70 captures open.
        time.sleep(3)
        stop.set()
        prober.join()
        assert slowest, "health was never probed"
        ordered = sorted(slowest)
        print(f"join storm: {RUNS} runs joined in {joined_after:.1f} s; health over {len(ordered)} probes: "
              f"median {ordered[len(ordered) // 2]:.3f} s, max {ordered[-1]:.3f} s")
        # Before the fix health timed out (10 s here, minutes in the field). The median proves it
        # answers at once; the ceiling leaves room for CI machines busy with other jobs.
        assert ordered[len(ordered) // 2] < 0.2, f"median health latency {ordered[len(ordered) // 2]:.2f} s"
        assert ordered[-1] < 2.0, f"health took up to {ordered[-1]:.2f} s during the join storm: {ordered[-5:]}"
    finally:
        stop.set()
        agent.stop_daemon()
        server.stop()
