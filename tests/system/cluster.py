"""N `perflab serve` processes on one PostgreSQL and one bucket, behind an nginx load balancer."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.system.harness import ServerProcess, free_port, wait_healthy

LB_CONF = """worker_processes 1;
pid {d}/lb.pid;
error_log {d}/lb-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {d}/tmp/body;
  proxy_temp_path {d}/tmp/proxy;
  fastcgi_temp_path {d}/tmp/fastcgi;
  uwsgi_temp_path {d}/tmp/uwsgi;
  scgi_temp_path {d}/tmp/scgi;
  client_max_body_size 64m;
  upstream perflab {{
{servers}
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://perflab;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # Live pages (SSE) and agent long polls wait; uploads stream to the server as they arrive.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 120s;
      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"""


class ServeProcess(ServerProcess):
    """`perflab serve` with its own data directory; killable with SIGKILL like a crashed host."""

    stop_grace_s = 15  # `serve --workers N` shuts down N worker processes, not one

    def __init__(self, name: str, home: Path, database_url: str, env: dict[str, str]) -> None:
        self.name = name
        self.home = home
        self.port = free_port()
        self.env = {**{k: v for k, v in os.environ.items() if not k.startswith("PERFLAB_S3_")},
                    "PERFLAB_DATABASE_URL": database_url, "PERFLAB_HOME": str(home), "PERFLAB_ENV": "test",
                    "PERFLAB_PORT": str(self.port), **env}
        self.log = home / "serve.log"
        self.proc = None

    def start(self, extra_args: tuple[str, ...] = ()) -> ServeProcess:
        self.home.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "serve", "--host", "127.0.0.1", *extra_args],
                                     env=self.env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        wait_healthy(self.url, self.proc, self.log, 60)
        return self


class LoadBalancer:
    """nginx round-robin in front of the servers; a server that refuses connections is skipped."""

    def __init__(self, workdir: Path, ports: list[int]) -> None:
        self.workdir = workdir
        self.ports = ports
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoadBalancer:
        d = self.workdir
        for sub in ("tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"):
            (d / sub).mkdir(parents=True, exist_ok=True)
            os.chmod(d / sub, 0o777)
        os.chmod(d, 0o755)
        os.chmod(d / "tmp", 0o755)
        servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;" for p in self.ports)
        (d / "lb.conf").write_text(LB_CONF.format(d=d, port=self.port, servers=servers))
        self.proc = subprocess.Popen(["nginx", "-p", str(d), "-c", str(d / "lb.conf"), "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/health", timeout=2):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    raise RuntimeError(f"nginx exited: {err}") from None
                if time.monotonic() > deadline:
                    raise RuntimeError("the load balancer did not answer") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
