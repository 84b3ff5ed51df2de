"""The same import sent several times at once: one run, every other answer the documented duplicate (issue 21).

It used to be checked, parsed, then inserted: the concurrent copies all found no run, and all but one
failed on the unique content hash with a 500.
"""

from __future__ import annotations

import threading
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES

WRK = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "wrk.txt"
STRACE = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "strace-c.txt"


def _send_at_once(app: Any, token: str, url: str, body: dict[str, Any], senders: int) -> list[tuple[int, Any]]:
    barrier = threading.Barrier(senders)
    replies: list[tuple[int, Any]] = []

    def send() -> None:
        # Not entered: the app's lifespan runs once, in the `client` fixture.
        c = TestClient(app, raise_server_exceptions=False, headers={"Authorization": f"Bearer {token}"})
        barrier.wait()
        r = c.post(url, json=body)
        replies.append((r.status_code, r.json() if r.headers.get("content-type") == "application/json" else r.text))

    threads = [threading.Thread(target=send) for _ in range(senders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return replies


def test_concurrent_identical_imports_make_one_run_and_duplicates(app: Any, project: dict[str, Any],
                                                                    agent_token: str, session: Any) -> None:
    from sqlalchemy import text

    senders = 4
    for trial in range(3):
        body = {"experiment": f"twice {trial}", "label": "r1",
                "files": [{"name": "wrk.txt", "content": WRK.read_text()},
                          {"name": "strace-c.txt", "content": STRACE.read_text(), "role": "proxy"}]}
        replies = _send_at_once(app, agent_token, f"/api/projects/{project['slug']}/imports", body, senders)
        codes = sorted(code for code, _ in replies)
        assert codes == [200] * (senders - 1) + [201], replies
        assert {reply["run_id"] for _, reply in replies} and len({reply["run_id"] for _, reply in replies}) == 1
        assert [reply["duplicate"] for code, reply in replies if code == 200] == [True] * (senders - 1)
    session.commit()
    assert session.execute(text("SELECT count(*) FROM run")).scalar_one() == 3
