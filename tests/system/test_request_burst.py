"""A burst of requests, or daemons long-polling, must not use up the server's pooled connections.

FastAPI runs a sync dependency, the route and the route's response validation in separate hops of one
40-thread pool, and the pool has 30 connections. When a request kept its connection from one hop to
the next, it could wait for a thread while every thread waited for a connection: 300 concurrent agent
GETs got 11 answers, 195 503s after the pool's 10 s timeout and 94 client timeouts at 60 s. The join
storm test (70 runs joined at once) failed in CI on the same thing. And a long poll kept its
connection for its whole wait, so 30 idle daemons used up the pool.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from tests.system.harness import Server, get_json, make_project_and_token

BURST = 300
POLLERS = 40  # more than the pool's 30 connections


def _request(url: str, token: str, body: dict[str, Any] | None = None, timeout: float = 60) -> int | str:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Authorization": f"Bearer {token}",
                                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError as exc:
        return type(exc).__name__


def test_300_concurrent_agent_requests_are_all_answered(database_url: str, db_engine: Any, tmp_path: Path) -> None:
    token = make_project_and_token("burst")
    server = Server(database_url, tmp_path / "home")
    server.start()
    try:
        run_id = str(uuid.uuid4())
        assert _request(f"{server.url}/api/agent/runs", token, {"run_id": run_id, "experiment": "e"}) == 201
        answers: list[int | str] = []
        gate = threading.Barrier(BURST)

        def one() -> None:
            gate.wait()
            answers.append(_request(f"{server.url}/api/agent/runs/{run_id}", token))

        threads = [threading.Thread(target=one) for _ in range(BURST)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - t0
        print(f"burst: {BURST} requests answered in {took:.1f} s: {Counter(answers)}")
        assert Counter(answers) == {200: BURST}, f"{Counter(answers)} in {took:.1f} s"
    finally:
        server.stop()


def test_daemons_waiting_in_long_polls_leave_the_pool_to_others(database_url: str, db_engine: Any,
                                                                tmp_path: Path) -> None:
    token = make_project_and_token("pollers")
    server = Server(database_url, tmp_path / "home")
    server.start()
    agent = str(uuid.uuid4())
    try:
        assert _request(f"{server.url}/api/agent/hello", token,
                        {"agent_id": agent, "hostname": "proxy-1", "role": "proxy"}) == 200
        known = ",".join(f"{r['run_id']}:{r['state']}"
                         for r in get_json(f"{server.url}/api/agent/poll?agent_id={agent}&timeout=0", token)["runs"])
        answers: list[int | str] = []

        def wait_in_poll() -> None:
            answers.append(_request(f"{server.url}/api/agent/poll?agent_id={agent}&timeout=25&known={known}", token))

        pollers = [threading.Thread(target=wait_in_poll) for _ in range(POLLERS)]
        for t in pollers:
            t.start()
        time.sleep(2)  # every poll has authenticated and is waiting
        assert not answers, f"the long polls answered early: {answers}"
        t0 = time.monotonic()
        created = _request(f"{server.url}/api/agent/runs", token, {"run_id": str(uuid.uuid4()), "experiment": "e"},
                           timeout=30)
        took = time.monotonic() - t0
        print(f"run created in {took:.3f} s while {POLLERS} daemons waited in long polls")
        # Before, this waited the pool's 10 s for a connection and got 503.
        assert created == 201, f"creating a run while {POLLERS} daemons wait answered {created} after {took:.1f} s"
        assert took < 5, f"creating a run took {took:.1f} s while {POLLERS} daemons waited in long polls"
        for t in pollers:
            t.join(30)
        # The new run was news to every waiting daemon.
        assert answers == [200] * POLLERS, Counter(answers)
    finally:
        server.stop()
