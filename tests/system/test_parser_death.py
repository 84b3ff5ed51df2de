"""A parser process killed mid-work (issue 21): what the user sees, against a real `perflab serve`.

Uploads are parsed, and large tree and diff views built, in a child of the server's fork server
(perflab/profiles/parsing.py). The kernel's OOM killer or an operator may kill one at any time:
the request must answer 503 with a JSON error that says so and to retry (not a 500, not a hang),
nothing half-stored may remain, the server must keep answering, and the pool must not be wedged:
the same request sent again succeeds. The fork server itself killed, the next parse starts another.
"""

from __future__ import annotations

import gzip
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
from sqlalchemy import text

from tests.system.test_memory_budget import MB, PROFILE_SHAPES, Lab, lab, vmstat_log

__all__ = ["lab"]  # the fixture, for pytest


def _fork_server(server_pid: int) -> int:
    """The server's fork server: the one child whose command line says so (it starts with the first
    parse). Every parser process is its child."""
    for child in psutil.Process(server_pid).children():
        if "forkserver" in " ".join(child.cmdline()):
            return int(child.pid)
    raise AssertionError("the server has no fork server: no parse has run yet")


def _workers(pid: int) -> list[int]:
    # The kernel's list of a process's children: cheap enough to poll without pause (psutil's
    # children() reads every process on the machine).
    with open(f"/proc/{pid}/task/{pid}/children") as fh:
        return [int(c) for c in fh.read().split()]


def _kill_mid_work(lab: Lab, send: Callable[[], httpx.Response], cpu_s: float) -> httpx.Response:
    """Send a request in a thread and SIGKILL the parser process it starts once that has used ``cpu_s``
    of CPU (0: as soon as it exists); returns the answer."""
    fork_server = _fork_server(lab.server.proc.pid)
    answer: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: answer.append(send()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    killed = False
    while not killed and time.monotonic() < deadline and thread.is_alive():
        for pid in _workers(fork_server):
            try:
                if cpu_s <= 0 or sum(psutil.Process(pid).cpu_times()[:2]) >= cpu_s:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
            except (psutil.NoSuchProcess, ProcessLookupError):
                pass  # it ended between the look and the kill: the assertions below say so
        if cpu_s > 0:
            time.sleep(0.005)
    thread.join(60)
    assert killed, f"no parser process was seen working for {cpu_s} s of CPU (answered: {answer})"
    assert answer, "the request got no answer 60 s after its parser process was killed"
    return answer[0]


def _assert_says_died_retry(r: httpx.Response) -> None:
    assert r.status_code == 503, (r.status_code, r.text[:500])
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert "process died" in body["detail"] and "retry" in body["detail"], body
    assert int(r.headers["retry-after"]) > 0


def _stored_objects(lab: Lab) -> set[Path]:
    return {p for p in (lab.server.home / "artifacts").rglob("*") if p.is_file()}


def test_a_killed_parser_process_is_a_503_to_retry_and_leaves_nothing_behind(lab: Lab, db_engine: Any) -> None:
    run = lab.new_run()
    # The fork server starts with the first parse; the upload below must be the one whose parse dies.
    assert lab.http.post(f"/api/runs/{run}/profiles", params={"name": "warm-up"}, content=b"a;b 1\n").status_code == 201
    # 64 MB of 4,096-frame stacks, gzip-compressed: seconds of parsing, a few hundred KB to send.
    deep = gzip.compress(PROFILE_SHAPES["deep"](64 * MB).encode(), compresslevel=6)

    def upload() -> httpx.Response:
        return lab.http.post(f"/api/runs/{run}/profiles", params={"name": "deep-64"}, content=deep,
                             headers={"Content-Type": "application/octet-stream"})

    objects = _stored_objects(lab)
    r = _kill_mid_work(lab, upload, cpu_s=0.3)
    _assert_says_died_retry(r)
    assert lab.http.get("/api/health").status_code == 200
    # Nothing half-stored: no profile, no artifact row, no stored object from the dead upload.
    assert [p["name"] for p in lab.http.get(f"/api/runs/{run}/profiles").json()] == ["warm-up"]
    with db_engine.connect() as conn:
        rows = conn.execute(text("SELECT name FROM artifact WHERE run_id = :run AND kind = 'flamegraph'"),
                            {"run": run}).scalars().all()
    assert rows == ["warm-up"], rows
    assert _stored_objects(lab) == objects

    # The pool is not wedged: the same upload, sent again, is parsed and stored.
    r = upload()
    assert r.status_code == 201, r.text
    deep_id = r.json()["profile_id"]
    wide = gzip.compress(PROFILE_SHAPES["wide"](MB).encode())
    r = lab.http.post(f"/api/runs/{run}/profiles", params={"name": "wide-1"}, content=wide)
    assert r.status_code == 201, r.text
    wide_id = r.json()["profile_id"]

    # A large view is built in a parser process too: killed, a 503 to retry; the next one works.
    def diff() -> httpx.Response:
        return lab.http.get(f"/api/profiles/{deep_id}/diff", params={"other": wide_id})

    # Killed as soon as it is seen, it is usually still being handed its arguments (the two stored
    # trees, written to it as it starts); then well into its work.
    for cpu_s in (0.0, 0.05):
        r = _kill_mid_work(lab, diff, cpu_s=cpu_s)
        _assert_says_died_retry(r)
        assert lab.http.get("/api/health").status_code == 200
    r = diff()
    assert r.status_code == 200, r.text
    assert r.json()["base_total"] > 0 and r.json()["pruned"]["nodes"] > 0

    # The fork server itself killed: the next parse starts a new one.
    old = _fork_server(lab.server.proc.pid)
    os.kill(old, signal.SIGKILL)
    r = lab.http.post(f"/api/runs/{run}/profiles", params={"name": "after"}, content=b"a;b 1\n")
    assert r.status_code == 201, r.text
    assert _fork_server(lab.server.proc.pid) != old


def test_an_import_whose_parser_process_dies_answers_503_stores_nothing_and_the_next_works(lab: Lab) -> None:
    """Imports are read and stored by a parser process too (imports/job.py): its transaction dies with it."""
    lab.new_run("direct")  # starts the fork server
    payload = {"experiment": "killed", "label": "x", "files": [{"name": "vmstat.txt", "content": vmstat_log(16 * MB)}]}
    body = gzip.compress(httpx.Request("POST", "/", json=payload).content, compresslevel=1)
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    url = f"/api/projects/{lab.slug}/imports"
    r = _kill_mid_work(lab, lambda: lab.http.post(url, content=body, headers=headers), cpu_s=0.5)
    _assert_says_died_retry(r)
    assert lab.http.get("/api/health").status_code == 200
    experiments = lab.http.get(f"/api/projects/{lab.slug}/experiments").json()
    assert "killed" not in str(experiments), experiments
    # The pool is not wedged: the same import, sent again, is stored.
    r = lab.http.post(url, content=body, headers=headers)
    assert r.status_code == 201, r.text
    assert r.json()["duplicate"] is False
