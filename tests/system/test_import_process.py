"""An import is read and stored by a parser process (imports/job.py), not by the serving process: what
a user sees when that process dies mid-import, and that the server is not left waiting on it."""

from __future__ import annotations

import gzip
import threading
import time
from typing import Any

import httpx
import psutil

from tests.system.test_memory_budget import MB, Lab, lab, vmstat_log

__all__ = ["lab"]  # the fixture, for pytest


def _parser_process(server_pid: int, timeout_s: float = 60) -> psutil.Process:
    """The process working on the import: a child of the fork server, itself a child of the server."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for proc in psutil.Process(server_pid).children(recursive=True):
            try:
                parent = proc.parent()
                if parent is not None and parent.pid != server_pid and "forkserver" in " ".join(parent.cmdline()):
                    return proc
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.01)
    raise AssertionError("no parser process appeared")


def test_an_import_whose_parser_process_dies_answers_503_stores_nothing_and_the_next_works(lab: Lab) -> None:
    lab.new_run("direct")  # starts the fork server: the next process to appear is the import's
    payload = {"experiment": "killed", "label": "x", "files": [{"name": "vmstat.txt", "content": vmstat_log(16 * MB)}]}
    body = gzip.compress(httpx.Request("POST", "/", json=payload).content, compresslevel=1)
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    url = f"/api/projects/{lab.slug}/imports"
    answers: list[httpx.Response] = []
    sender = threading.Thread(target=lambda: answers.append(lab.http.post(url, content=body, headers=headers)))
    sender.start()
    victim = _parser_process(lab.server.proc.pid)
    time.sleep(1.0)  # well into reading 16 MB (several seconds of work)
    victim.kill()
    sender.join(120)

    r = answers[0]
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"]
    detail = r.json()["detail"]
    assert "parser process died" in detail and "retry" in detail, detail
    assert lab.http.get("/api/health").status_code == 200
    # Its transaction died with it: no experiment, no run.
    experiments: dict[str, Any] = lab.http.get(f"/api/projects/{lab.slug}/experiments").json()
    assert "killed" not in str(experiments), experiments
    # The pool is not wedged: the same import, sent again, is stored.
    r = lab.http.post(url, content=body, headers=headers)
    assert r.status_code == 201, r.text
    assert r.json()["duplicate"] is False
