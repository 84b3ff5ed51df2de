"""What an engineer types, against a real server: `perflab-agent import FILE` of an unlabelled 10 MB
`vmstat -t 1` log and `perflab-agent upload --flamegraph` of a 100,000-function folded profile, each
beside `perflab parse vmstat` of the same log (a new process, as typed), alternated, best of each.

Targets (issue 20): import / parse <= 2x, upload / parse <= 1.5x.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "backend"), str(ROOT / "bench")]

from bench.common import agent_server, run_agent, write_result
from bench.profiles_bench import build_vmstat, parse_vmstat_cli, synthetic

REPEAT = 3


def main() -> int:
    from perflab.parsers.profiles import Profile, to_folded

    workdir = Path(tempfile.mkdtemp(prefix="perflab-bench-userpath-"))
    log = workdir / "vmstat.log"  # no kind in the name: the server detects it
    lines = build_vmstat(log)
    folded = workdir / "app.folded"
    folded.write_bytes(to_folded(Profile(synthetic(100_000, 1))))
    with agent_server("userpath", workdir / "home") as (server, token, run_id):
        peer: list[float] = []
        imports: list[float] = []
        uploads: list[float] = []
        for i in range(REPEAT):
            peer.append(parse_vmstat_cli(log))
            imports.append(run_agent(server.url, token, "import", "--project", "bench", "--experiment", f"imp{i}",
                                     str(log))[0])
            uploads.append(run_agent(server.url, token, "upload", "--run", run_id, "--flamegraph", str(folded))[0])
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
