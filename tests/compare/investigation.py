"""Load the real nginx-proxy-buffers investigation (4 experiments x 3 runs) through the agent protocol.

Reusable by any suite (and by seeding scripts): it only needs an HTTP client logged in as a user (to
create an agent token) and a way to make a client that sends that token. Every run goes the way a
real one does: create, join (loadgen + proxy), start, stream batches (wrk stdout as `load`, vmstat,
`pidstat:nginx`, `strace-c:nginx`), upload the nginx.conf snapshot, finish.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "nginx-proxy-buffers"
EXPERIMENTS = ("direct", "default", "buffers-128x4k", "buffers-4x128k")
HYPOTHESES = {
    "direct": "wrk hits the upstream directly: the ceiling",
    "default": "through nginx with the default proxy_buffers 8 4k",
    "buffers-128x4k": "more 4k buffers: fewer writev calls",
    "buffers-4x128k": "few large buffers: one readv per response",
}
LOADGEN = {"agent_id": "agent-loadgen-0001", "hostname": "wrk-1", "role": "loadgen"}
PROXY = {"agent_id": "agent-proxy-0001", "hostname": "proxy-1", "role": "proxy"}
_CLOCK = re.compile(r"\b(\d{2}):(\d{2}):(\d{2})\b")


@dataclass
class Investigation:
    slug: str
    token: str
    # experiment name -> run ids, in run order
    runs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def all_runs(self) -> list[str]:
        return [r for runs in self.runs.values() for r in runs]


def timed_lines(text: str, start: float) -> list[list[Any]]:
    """[wall, mono, line] with wall following the tool's own clock (HH:MM:SS on the line), so samples
    of one second share that second the way they would when streamed live."""
    out: list[list[Any]] = []
    first: int | None = None
    offset = 0.0
    for i, line in enumerate(text.splitlines()):
        m = _CLOCK.search(line)
        if m:
            secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            first = secs if first is None else first
            offset = float((secs - first) % 86400)
        wall = start + offset + 0.5 + i * 1e-4
        out.append([wall, 1000.0 + wall - start, line])
    return out


def _batch(run_id: str, stream: str, source: str, role: str, lines: list[list[Any]]) -> dict[str, Any]:
    return {"run_id": run_id, "stream": stream, "source": source, "role": role, "seq": 1, "lines": lines,
            "dropped": 0, "closed": True}


def _ok(r: Any, what: str) -> Any:
    assert r.status_code in (200, 201), f"{what}: {r.status_code} {r.text}"
    return r.json()


def load_investigation(
    user: Any, agent_client: Callable[[str], Any], slug: str, *, experiments: tuple[str, ...] = EXPERIMENTS,
    runs: tuple[int, ...] = (1, 2, 3), start: float | None = None, config_name: str = "nginx.conf",
) -> Investigation:
    """`user`: a logged-in client (with its CSRF header); `agent_client(token)`: a client sending the token."""
    token = _ok(user.post(f"/api/projects/{slug}/tokens", json={"name": "investigation", "scopes": ["ingest", "read"]}),
                "create token")["token"]
    agent = agent_client(token)
    for host in (LOADGEN, PROXY):
        _ok(agent.post("/api/agent/hello", json={
            **host, "version": "0.1.0",
            "facts": {"kernel": "6.18.44", "cpus_online": 2, "distro": "Debian 12",
                      "tool_versions": {"wrk": "4.2.0"} if host is LOADGEN else {"vmstat": "procps-ng 4.0.2"}},
            "capabilities": {}, "collectors": [] if host is LOADGEN else ["vmstat", "pidstat:nginx", "strace-c:nginx"],
        }), "hello")
    inv = Investigation(slug=slug, token=token)
    t = start if start is not None else time.time() - 3600
    for exp in experiments:
        folder = CAPTURE / exp
        for n in runs:
            run_dir = folder / f"run{n}"
            run_id = str(uuid.uuid4())
            _ok(agent.post("/api/agent/runs", json={
                "run_id": run_id, "experiment": exp, "label": f"run {n}", "hypothesis": HYPOTHESES.get(exp, ""),
                "load_command": "wrk -t 2 -c 100 -d 10s --latency http://127.0.0.1:18090/page.html",
                "wait_for_roles": ["loadgen", "proxy"]}), "create run")
            for host, streams in ((LOADGEN, ["load"]), (PROXY, ["vmstat", "pidstat:nginx", "strace-c:nginx"])):
                _ok(agent.post(f"/api/agent/runs/{run_id}/join",
                               json={"agent_id": host["agent_id"], "role": host["role"], "streams": streams}), "join")
            _ok(agent.post(f"/api/agent/runs/{run_id}/start", json={"started_at": t}), "start")
            proxy_batches = [
                _batch(run_id, "vmstat", "vmstat", "proxy", timed_lines((run_dir / "vmstat.txt").read_text(), t)),
                _batch(run_id, "pidstat:nginx", "pidstat", "proxy",
                       timed_lines((run_dir / "pidstat.txt").read_text(), t)),
                _batch(run_id, "strace-c:nginx", "strace-c", "proxy",
                       [[t + 10.5, 1010.5, ln] for ln in (run_dir / "strace-c.txt").read_text().splitlines()]),
            ]
            _ok(agent.post("/api/ingest/batches", json={"agent_id": PROXY["agent_id"], "batches": proxy_batches}),
                "proxy batches")
            wrk = [[t + 10.2 + i * 1e-3, 1010.2 + i * 1e-3, ln]
                   for i, ln in enumerate((run_dir / "wrk.txt").read_text().splitlines())]
            _ok(agent.post("/api/ingest/batches", json={"agent_id": LOADGEN["agent_id"],
                                                        "batches": [_batch(run_id, "load", "wrk", "loadgen", wrk)]}),
                "load batch")
            conf = folder / "nginx.conf"
            if conf.exists():
                r = agent.post(f"/api/agent/runs/{run_id}/artifacts", params={"kind": "config", "name": config_name,
                                                                             "role": "proxy"},
                               content=conf.read_bytes(), headers={"Content-Type": "application/octet-stream"})
                _ok(r, "config snapshot")
            _ok(agent.post(f"/api/agent/runs/{run_id}/finish", json={"exit_code": 0, "ended_at": t + 11}), "finish")
            inv.runs.setdefault(exp, []).append(run_id)
            t += 60
    return inv


def load_with_testclient(app: Any, user: Any, slug: str, **kw: Any) -> Investigation:
    """The same through FastAPI's TestClient (tests), every run parsed before it returns."""
    from fastapi.testclient import TestClient

    from tests.conftest import wait_parsed

    def make(token: str) -> Any:
        c = TestClient(app)
        c.headers["Authorization"] = f"Bearer {token}"
        return c

    inv = load_investigation(user, make, slug, **kw)
    for run_id in inv.all_runs:
        wait_parsed(run_id)
    return inv
