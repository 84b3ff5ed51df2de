"""What an engineer types, against a real server: `perflab-agent import FILE` of an unlabelled 10 MB
`vmstat -t 1` log and `perflab-agent upload --flamegraph` of a 100,000-function folded profile, each
beside `perflab parse vmstat` of the same log (a new process, as typed), alternated, best of each.

Targets (issue 20): import / parse <= 2x, upload / parse <= 1.5x.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend"), str(ROOT / "bench")]

from bench.common import bench_database, write_result
from bench.profiles_bench import build_vmstat, parse_vmstat_cli, synthetic
from tests.system.harness import Server

REPEAT = 3


def agent(server: Server, token: str, *args: str) -> float:
    env = {**os.environ, "PERFLAB_SERVER": server.url, "PERFLAB_TOKEN": token, "PYTHONPATH": str(ROOT / "agents")}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "perflab_agent", *args], env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"perflab-agent {args[0]} failed: {out.stderr[-2000:]}")
    return took


def main() -> int:
    from perflab.parsers.profiles import Profile, to_folded

    workdir = Path(tempfile.mkdtemp(prefix="perflab-bench-userpath-"))
    log = workdir / "vmstat.log"  # no kind in the name: the server detects it
    lines = build_vmstat(log)
    folded = workdir / "app.folded"
    folded.write_bytes(to_folded(Profile(synthetic(100_000, 1))))
    with bench_database("userpath") as url:
        os.environ["PERFLAB_DATABASE_URL"] = url
        from perflab.cli import migrate
        from perflab.db import unit_of_work
        from perflab.projects import service as projects
        from perflab.tokens import service as tokens

        migrate(url)
        with unit_of_work() as s:
            project = projects.create_project(s, name="bench", slug="bench")
            token, _ = tokens.create_token(s, project=project, name="bench", scopes=["ingest", "read"])
        server = Server(url, workdir / "home")
        server.start()
        try:
            run_id = str(uuid.uuid4())
            req = urllib.request.Request(f"{server.url}/api/agent/runs", method="POST", data=json.dumps(
                {"run_id": run_id, "experiment": "profiles", "wait_for_roles": []}).encode(), headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            urllib.request.urlopen(req).read()
            peer: list[float] = []
            imports: list[float] = []
            uploads: list[float] = []
            for i in range(REPEAT):
                peer.append(parse_vmstat_cli(log))
                imports.append(agent(server, token, "import", "--project", "bench", "--experiment", f"imp{i}",
                                     str(log)))
                uploads.append(agent(server, token, "upload", "--run", run_id, "--flamegraph", str(folded)))
        finally:
            server.stop()
    result: dict[str, Any] = {
        "vmstat_mb": round(log.stat().st_size / 1e6, 1), "vmstat_lines": lines,
        "folded_mb": round(folded.stat().st_size / 1e6, 1),
        "peer_parse_vmstat_s": round(min(peer), 3), "peer_runs_s": [round(t, 3) for t in peer],
        "agent_import_s": round(min(imports), 3), "import_runs_s": [round(t, 3) for t in imports],
        "agent_upload_s": round(min(uploads), 3), "upload_runs_s": [round(t, 3) for t in uploads],
        "import_ratio": round(min(imports) / min(peer), 2), "upload_ratio": round(min(uploads) / min(peer), 2),
        "target_import_ratio": 2.0, "target_upload_ratio": 1.5,
    }
    write_result("user_path", result)
    print(f"perflab-agent import {result['vmstat_mb']} MB: {result['agent_import_s']} s ({result['import_ratio']}x); "
          f"upload {result['folded_mb']} MB folded: {result['agent_upload_s']} s ({result['upload_ratio']}x); "
          f"perflab parse vmstat: {result['peer_parse_vmstat_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
