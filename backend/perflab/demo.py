"""`perflab demo`: the nginx proxy_buffers investigation, reproduced live on loopback.

wrk -> nginx proxy (2 workers) -> nginx upstream serving a ~125 KB page, four experiments of three runs,
driven through the real agent into project `demo` of the running perflab. The nginx pair is also what
the end-to-end tests run against.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PAGE_BYTES = 125 * 1024
TOOLS = {
    "nginx": "nginx",
    "wrk": "wrk",
    "pidstat": "sysstat",
    "vmstat": "procps",
    "strace": "strace",
    "perf": "linux-perf",
    "stdbuf": "coreutils",
}

# (experiment, hypothesis, proxy_buffers directive or None for nginx's default, through the proxy?)
EXPERIMENTS = [
    ("direct", "Baseline: wrk talks to the upstream directly.", None, False),
    ("default", "Through nginx with the default proxy_buffers 8 4k.", None, True),
    ("buffers-128x4k", "More small buffers: proxy_buffers 128 4k.", "proxy_buffers 128 4k;", True),
    ("buffers-4x128k", "Few large buffers: proxy_buffers 4 128k (one readv per response).",
     "proxy_buffers 4 128k;", True),
]

TEMP_PATHS = """
  client_body_temp_path {d}/tmp/body;
  proxy_temp_path {d}/tmp/proxy;
  fastcgi_temp_path {d}/tmp/fastcgi;
  uwsgi_temp_path {d}/tmp/uwsgi;
  scgi_temp_path {d}/tmp/scgi;"""

UPSTREAM_CONF = """worker_processes 1;
pid {d}/upstream.pid;
error_log {d}/upstream-error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off;{temp}
  server {{
    listen 127.0.0.1:{port} reuseport;
    root {d}/www;
    keepalive_requests 1000000;
  }}
}}
"""

PROXY_CONF = """worker_processes 2;
pid {d}/proxy.pid;
error_log {d}/proxy-error.log;
events {{ worker_connections 4096; }}
http {{
  access_log off;{temp}
  upstream backend {{ server 127.0.0.1:{upstream_port}; keepalive 100; }}
  server {{
    listen 127.0.0.1:{port} reuseport;
    location / {{
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      {buffers}
    }}
  }}
}}
"""


def missing_tools(names: list[str] | None = None) -> dict[str, str]:
    wanted = names or list(TOOLS)
    return {t: TOOLS[t] for t in wanted if shutil.which(t) is None}


@dataclass
class NginxPair:
    """An upstream nginx serving page.html and a proxy nginx in front of it, both on loopback."""

    workdir: Path
    upstream_port: int = 18091
    proxy_port: int = 18090
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def proxy_conf(self) -> Path:
        return self.workdir / "proxy.conf"

    def page_url(self, through_proxy: bool) -> str:
        port = self.proxy_port if through_proxy else self.upstream_port
        return f"http://127.0.0.1:{port}/page.html"

    def _write(self, buffers: str | None) -> None:
        d = self.workdir
        temp = TEMP_PATHS.format(d=d)
        (d / "upstream.conf").write_text(UPSTREAM_CONF.format(d=d, port=self.upstream_port, temp=temp))
        self.proxy_conf.write_text(PROXY_CONF.format(d=d, port=self.proxy_port, upstream_port=self.upstream_port,
                                                     buffers=buffers or "", temp=temp))

    def start(self, buffers: str | None = None) -> None:
        d = self.workdir
        for sub in ("www", "tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        # Deterministic ~125 KB page, readable by nginx's unprivileged workers.
        (d / "www" / "page.html").write_bytes((b"<p>perflab demo page</p>\n" * (PAGE_BYTES // 25 + 1))[:PAGE_BYTES])
        for p in [d, d / "www", d / "tmp", *[(d / "tmp" / s) for s in ("body", "proxy", "fastcgi", "uwsgi", "scgi")]]:
            os.chmod(p, 0o777 if p.parent.name == "tmp" else 0o755)
        os.chmod(d / "www" / "page.html", 0o644)
        self._write(buffers)
        for name in ("upstream", "proxy"):
            self.procs[name] = subprocess.Popen(
                ["nginx", "-p", str(d), "-c", str(d / f"{name}.conf"), "-g", "daemon off;"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
            )
        for port in (self.upstream_port, self.proxy_port):
            self._wait(port)

    def _wait(self, port: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/page.html", timeout=2) as r:
                    if len(r.read()) == PAGE_BYTES:
                        return
            except OSError:
                pass
            for name, p in self.procs.items():
                if p.poll() is not None:
                    err = p.stderr.read().decode() if p.stderr else ""
                    raise RuntimeError(f"nginx ({name}) exited: {err.strip()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not answer on 127.0.0.1:{port}")
            time.sleep(0.1)

    def set_buffers(self, buffers: str | None) -> None:
        self._write(buffers)
        self.procs["proxy"].send_signal(signal.SIGHUP)
        time.sleep(1.0)  # old workers finish, new ones take the new config
        self._wait(self.proxy_port)

    def worker_pids(self) -> list[int]:
        master = self.procs["proxy"].pid
        out = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True)
        return [int(x) for x in out.stdout.split()]

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGQUIT)
        for p in self.procs.values():
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()


def _agent_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("perflab-agent")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "perflab_agent"]


def default_server(env: Any) -> str:
    """Where `make run` serves: the same PERFLAB_HOST / PERFLAB_PORT `perflab serve` reads."""
    if env.get("PERFLAB_PUBLIC_URL"):
        return str(env["PERFLAB_PUBLIC_URL"])
    host = env.get("PERFLAB_HOST") or "127.0.0.1"
    if host in ("0.0.0.0", "::"):  # listening everywhere: reach it on loopback
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{env.get('PERFLAB_PORT') or 8000}"


def _ensure_project_and_token(slug: str) -> str:
    from perflab.db import unit_of_work
    from perflab.errors import NotFound
    from perflab.projects import service as projects
    from perflab.tokens import service as tokens

    with unit_of_work() as session:
        try:
            project = projects.get_by_slug(session, slug=slug)
        except NotFound:
            project = projects.create_project(session, name="nginx proxy buffers (demo)", slug=slug,
                                              description="Why does throughput halve when nginx proxies a "
                                                          "125 KB page? Reproduced live by `make demo`.")
        token, _ = tokens.create_token(session, project=project, name="demo", scopes=["ingest", "read"])
    return token


def run_demo(args: argparse.Namespace) -> int:
    missing = missing_tools()
    if missing:
        pkgs = " ".join(sorted(set(missing.values())))
        print(f"perflab demo needs: {', '.join(missing)}.\nInstall them with: sudo apt-get install {pkgs}",
              file=sys.stderr)
        return 1
    server = args.server.rstrip("/")
    try:
        urllib.request.urlopen(f"{server}/api/health", timeout=5).read()
    except OSError as exc:
        print(f"perflab demo needs a running perflab at {server} ({exc}).\nStart it with `make run` in another "
              "terminal, or pass --server URL.", file=sys.stderr)
        return 1
    token = _ensure_project_and_token(args.project)
    env = {**os.environ, "PERFLAB_SERVER": server, "PERFLAB_TOKEN": token}
    workdir = Path(tempfile.mkdtemp(prefix="perflab-demo-"))
    pair = NginxPair(workdir)
    daemon: subprocess.Popen[bytes] | None = None
    try:
        pair.start()
        print(f"nginx upstream on :{pair.upstream_port}, proxy on :{pair.proxy_port} ({workdir})")
        daemon = subprocess.Popen(
            [*_agent_cmd(), "daemon", "--role", "proxy", "--state-dir", str(workdir / "agent"),
             "--collect", "vmstat", "--collect", "pidstat:nginx", "--collect", f"strace-c:nginx:{args.strace_s}",
             "--collect", f"perf:nginx:{args.perf_s}", "--config-file", str(pair.proxy_conf),
             "--sysctl", "net.core.somaxconn"],
            env=env, start_new_session=True,
        )
        time.sleep(2)
        for name, hypothesis, buffers, through_proxy in EXPERIMENTS:
            if args.only and name not in args.only:
                continue
            pair.set_buffers(buffers)
            print(f"\n== {name}: {hypothesis}")
            cmd = [*_agent_cmd(), "run", "--role", "loadgen", "--project", args.project, "--experiment", name,
                   "--repeat", str(args.repeat), "--cooldown", "2", "--wait-for", "proxy", "--",
                   "wrk", "-c", "100", "-t", "2", "-d", f"{args.duration}s", "--latency",
                   pair.page_url(through_proxy)]
            result = subprocess.run(cmd, env=env)
            if result.returncode != 0:
                print(f"the agent's run command failed for {name} (exit {result.returncode})", file=sys.stderr)
                return result.returncode
        print(f"\nDone. Open {server}/p/{args.project} to browse the investigation.")
        return 0
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(daemon.pid, signal.SIGKILL)
        pair.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def register(sub: Any) -> None:
    s = sub.add_parser("demo", help="reproduce the nginx proxy_buffers investigation live on loopback")
    s.add_argument("--server", default=default_server(os.environ),
                   help="the perflab to record into (default: PERFLAB_PUBLIC_URL, else PERFLAB_HOST:PERFLAB_PORT)")
    s.add_argument("--project", default="demo")
    s.add_argument("--repeat", type=int, default=3)
    s.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    s.add_argument("--strace-s", type=int, default=5)
    s.add_argument("--perf-s", type=int, default=3)
    s.add_argument("--only", action="append", help="run only this experiment (repeatable)")
    s.set_defaults(func=run_demo)
