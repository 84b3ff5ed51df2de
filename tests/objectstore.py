"""A real S3 API server for tests: moto's standalone server (`moto[server]`), on a free loopback port.

It speaks the S3 protocol over HTTP (PutObject, multipart uploads, GetObject with ranges, ...), so
perflab's S3 backend is exercised through boto3 exactly as against MinIO or AWS, in one process that
installs from PyPI with the dev dependencies."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ACCESS_KEY = "perflab-test"
SECRET_KEY = "perflab-test-secret"
REGION = "us-east-1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class MotoServer:
    def __init__(self, log: Path) -> None:
        self.port = _free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> MotoServer:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=open(self.log, "ab"), stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"moto server exited: {self.log.read_text()[-2000:]}") from None
                time.sleep(0.2)
        raise RuntimeError("moto server did not start in 30 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def client(self) -> Any:
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET_KEY)

    def make_bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def env(self, bucket: str, prefix: str = "") -> dict[str, str]:
        """The PERFLAB_S3_* settings that point a server at `bucket` here."""
        env = {"PERFLAB_S3_ENDPOINT": self.endpoint, "PERFLAB_S3_BUCKET": bucket,
               "PERFLAB_S3_ACCESS_KEY_ID": ACCESS_KEY, "PERFLAB_S3_SECRET_ACCESS_KEY": SECRET_KEY,
               "PERFLAB_S3_REGION": REGION}
        if prefix:
            env["PERFLAB_S3_PREFIX"] = prefix
        return env


def keys_in(server: MotoServer, bucket: str) -> list[str]:
    out: list[str] = []
    for page in server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket):
        out += [o["Key"] for o in page.get("Contents", [])]
    return out


def set_env(env: dict[str, str]) -> None:
    os.environ.update(env)
