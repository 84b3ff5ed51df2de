"""The sender against a misbehaving server: docs/protocol.md's status table, request by request."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from perflab_agent.sender import Sender
from perflab_agent.spool import Spool
from perflab_agent.streams import Limits
from perflab_agent.transport import Client

from tests.agent.fakeserver import FakeServer
from tests.agent.helpers import wait_until

AGENT = "0b8a2c4e-1111-4222-8333-944455556666"


class Rig:
    def __init__(self, server: FakeServer, path: Path):
        self.server = server
        self.run_id = server.create_run()
        self.spool = Spool(str(path / "spool"), 10**8, 3600)
        self.limits = Limits()
        self.sender = Sender(Client(server.url, server.token, timeout=5), self.spool, AGENT, self.limits)

    def seal(self, stream: str, count: int, width: int = 20, start: int = 0, closed: bool = False) -> list[str]:
        self.spool.open_stream(self.run_id, stream, "command", "loadgen")
        texts = [f"{stream} {start + i:06d} {'x' * width}" for i in range(count)]
        self.spool.seal(self.run_id, stream, [[time.time(), time.monotonic(), t] for t in texts], closed=closed)
        return texts

    def received(self, stream: str) -> list[str]:
        return [line[2] for line in self.server.lines(self.run_id, stream)]

    def delivered(self) -> bool:
        return self.spool.pending() == 0


@pytest.fixture
def rig(server: FakeServer, tmp_path: Path) -> Iterator[Rig]:
    r = Rig(server, tmp_path)
    yield r
    r.sender.stop(0)
    r.spool.close()


def test_a_request_too_large_is_split_and_every_line_arrives_once(rig: Rig) -> None:
    sent = [t for i in range(8) for t in rig.seal("load", 10, width=100, start=10 * i)]
    rig.server.max_body = 4000
    rig.sender.start()
    wait_until(rig.delivered, 20, "delivery")
    assert rig.received("load") == sent
    assert [b["seq"] for b in rig.server.batches(rig.run_id, "load")] == list(range(1, 9))
    assert rig.sender.request_max_bytes < 4000
    assert all(len(r.body) <= 4000 for r in rig.server.recorded("/api/ingest") if r.status == 200)


def test_a_sealed_batch_too_large_goes_in_parts_of_the_same_seq(rig: Rig) -> None:
    sent = rig.seal("load", 100, width=100, closed=True)
    rig.server.max_body = 3000
    rig.sender.start()
    wait_until(rig.delivered, 20, "delivery")
    [batch] = rig.server.batches(rig.run_id, "load")
    assert batch["seq"] == 1 and batch["closed"]
    assert [line[2] for line in batch["lines"]] == sent
    parts = {b["parts"] for b in rig.server.deliveries if "parts" in b}
    assert parts and max(parts) >= 4, "re-split until each part fits"
    # Later batches are sealed smaller, before they get a seq.
    assert rig.limits.batch_bytes < 3000


def test_a_malformed_batch_is_set_aside_and_never_retried(rig: Rig) -> None:
    good = rig.seal("load", 3)
    rig.spool.seal(rig.run_id, "load", [[time.time(), time.monotonic(), "POISON here"]])
    more = rig.seal("load", 3, start=10)
    rig.server.reject_text = "POISON"
    rig.sender.start()
    wait_until(rig.delivered, 20, "delivery")
    assert rig.received("load") == good + more
    tries = sum(1 for b in rig.server.deliveries if "POISON" in str(b))
    time.sleep(1.5)
    requests_with_poison = [r for r in rig.server.recorded("/api/ingest") if b"POISON" in r.body]
    assert tries == 0 and len(requests_with_poison) <= 3, "isolated by halving, then never again"
    assert rig.spool.stats()["rejected_batches"] == 1
    assert len(list(Path(rig.spool.path, "rejected").glob("*.json"))) == 1
    # The refused seq is sent again empty, so the server's strictly ordered parsing goes on past it.
    batches = rig.server.batches(rig.run_id, "load")
    assert [b["seq"] for b in batches] == list(range(1, len(batches) + 1))
    stand_ins = [b for b in batches if b.get("refused_lines")]
    assert [(b["lines"], b["refused_lines"]) for b in stand_ins] == [([], 1)]


def test_backpressure_waits_at_least_retry_after(rig: Rig) -> None:
    sent = rig.seal("load", 5)
    rig.server.fail(503, path="/api/ingest", count=1, retry_after=2)
    rig.sender.start()
    wait_until(rig.delivered, 20, "delivery")
    attempts = rig.server.recorded("/api/ingest")
    assert [r.status for r in attempts] == [503, 200]
    assert attempts[1].at - attempts[0].at >= 1.9
    assert rig.received("load") == sent


def test_429_is_backpressure_too(rig: Rig) -> None:
    rig.seal("load", 2)
    rig.server.fail(429, path="/api/ingest", count=1, retry_after=1)
    rig.sender.start()
    wait_until(rig.delivered, 20, "delivery")
    attempts = rig.server.recorded("/api/ingest")
    assert [r.status for r in attempts] == [429, 200] and attempts[1].at - attempts[0].at >= 0.9


def test_dropped_connections_are_retried_without_duplicates(rig: Rig) -> None:
    sent = rig.seal("load", 5)
    rig.server.fail(path="/api/ingest", count=2, close=True)
    rig.sender.start()
    wait_until(rig.delivered, 30, "delivery")
    assert rig.received("load") == sent
    assert [r.status for r in rig.server.recorded("/api/ingest")] == [-1, -1, 200]


def test_a_recovered_server_is_noticed_before_the_backoff_ends(rig: Rig) -> None:
    rig.seal("load", 1)
    rig.sender.failures = 6  # as after a long outage: the next backoff ceiling is 60 s
    rig.server.fail(500, path="/api/ingest", count=1)
    rig.sender.start()
    wait_until(lambda: rig.server.recorded("/api/ingest"), 10, "first attempt")
    time.sleep(0.3)
    # Another request (a heartbeat or poll) gets an answer: the server is back.
    rig.sender.client.request("GET", f"/api/agent/runs/{rig.run_id}")
    wait_until(rig.delivered, 5, "prompt delivery")


def test_an_unknown_run_drops_its_batches(rig: Rig) -> None:
    rig.seal("load", 2)
    del rig.server.runs[rig.run_id]
    rig.sender.start()
    wait_until(rig.delivered, 10, "drop")
    assert [r.status for r in rig.server.recorded("/api/ingest")] == [404]


def test_a_refused_token_pauses_sending_and_keeps_the_spool(rig: Rig) -> None:
    rig.seal("load", 2)
    rig.server.token = "plb_other_token_after_rotation_000000"
    rig.sender.start()
    time.sleep(2.0)
    assert [r.status for r in rig.server.recorded("/api/ingest")] == [401]
    assert rig.spool.pending() == 1


def test_uploads_are_posted_and_refused_ones_set_aside(rig: Rig) -> None:
    url = f"/api/agent/runs/{rig.run_id}/artifacts"
    rig.spool.add_upload(url, {"kind": "config", "name": "/etc/nginx/nginx.conf", "role": "proxy"},
                         body=b"worker_processes 2;\n")
    rig.spool.add_upload("/api/agent/runs/{}/artifacts".format("0") * 1, {"kind": "raw", "name": "x"}, body=b"x")
    rig.sender.start()
    wait_until(rig.delivered, 10, "uploads")
    assert [(a["kind"], a["name"], a["body"]) for a in rig.server.artifacts] == [
        ("config", "/etc/nginx/nginx.conf", b"worker_processes 2;\n")]


def test_a_failing_upload_backs_off_on_its_own_while_batches_flow(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    # A server without the profiles endpoint yet (405): the profile waits, the lines do not.
    monkeypatch.setattr("perflab_agent.sender.backoff_delay", lambda failures, retry_after=None: 30.0)
    rig.spool.add_upload(f"/api/runs/{rig.run_id}/profiles", {"role": "proxy", "name": "perf"}, body=b"x")
    rig.server.fail(405, path="/api/runs/")
    rig.sender.start()
    sent = []
    for i in range(6):
        sent += rig.seal("load", 1, start=i)
        time.sleep(0.5)
    wait_until(lambda: rig.received("load") == sent, 10, "batches delivered")
    assert len(rig.server.recorded("/api/runs/")) == 1, "not retried each time a batch goes through"
    assert rig.sender.failures == 0 and rig.sender.upload_failures == 1
    assert rig.spool.pending() == 1, "the profile is kept for when the endpoint exists"
