"""What parse workers keep between batches, and what they no longer write per batch: the pass's candidate
list, the series ids a stream's batches reuse, and the samples a live series counts.

Each is a shortcut taken for speed (a claim query per stream, ~300 series rows read back and updated per
pidstat batch); these tests hold them to what the slow way gave."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from perflab.series.service import read_points
from tests.ingest.test_ingest import Agent, _batches, _lines, _run
from tests.ingest.test_parse_workers import RUN1, _streams
from tests.ingest.test_parse_workers import agent as agent  # noqa: F401  (fixtures)
from tests.ingest.test_parse_workers import app as app  # noqa: F401
from tests.ingest.test_parse_workers import t0 as t0  # noqa: F401
from tests.ingest.test_parse_workers import workers as workers  # noqa: F401

PIDSTAT_HEADER = "02:03:53      UID       PID    %usr %system  %guest   %wait    %CPU   CPU  Command"


def _pidstat(seconds: range, pids: list[int]) -> list[str]:
    return [f"02:03:{54 + s:02d}    65534 {pid:9d}    3.00   27.00    0.00   26.00   {30 + s:5.2f}     1  nginx"
            for s in seconds for pid in pids]


def _stored(session: Any, run_id: str) -> dict[int, int]:
    """Samples each series of the run holds, decoded from its chunks and blocks."""
    sids = session.execute(text("SELECT id FROM series WHERE run_id = :r"), {"r": run_id}).scalars().all()
    points = read_points(session, [(uuid.UUID(run_id), sid) for sid in sids])
    session.commit()
    return {sid: len(points.get((uuid.UUID(run_id), sid), ([], []))[0]) for sid in sids}


def _listed(client: TestClient, run_id: str) -> dict[int, int]:
    r = client.get(f"/api/runs/{run_id}/series")
    assert r.status_code == 200, r.text
    return {s["id"]: s["points"] for s in r.json()}


def test_a_series_lists_its_samples_while_live_and_once_merged(
    agent: Agent, client: TestClient, session: Any, workers: Any, t0: float
) -> None:
    run_id = _run(agent)
    batches = _streams(run_id, t0)
    open_ones = [b for b in batches if not b["closed"]]
    assert agent.send(open_ones).status_code == 200
    workers.drain()
    live = _stored(session, run_id)
    assert sum(live.values()) > 100
    # Live: the samples are in blocks, counted on the stream, not on the series rows.
    assert _listed(client, run_id) == live
    # The closing batches re-send a vmstat row at an instant already stored: merged at the close, the
    # series hold one sample there, and say so.
    vmstat_last = max(b["seq"] for b in batches if b["stream"] == "vmstat")
    for b in batches:
        if b["stream"] == "vmstat" and b["seq"] == vmstat_last:
            b["lines"] = [*b["lines"], [open_ones[-1]["lines"][-1][0], 0.0, b["lines"][-1][2]]]
            b["lines"].sort(key=lambda line: line[0])
    assert agent.send([b for b in batches if b["closed"]]).status_code == 200
    workers.drain()
    final = _stored(session, run_id)
    assert _listed(client, run_id) == final
    assert sum(final.values()) > sum(live.values())
    left = session.execute(text("SELECT count(*) FROM series_block WHERE run_id = :r"), {"r": run_id}).scalar()
    counts = session.execute(text("SELECT count(*) FROM stream WHERE run_id = :r AND parser_state ? 'points'"),
                             {"r": run_id}).scalar()
    session.commit()
    assert (left, counts) == (0, 0)


def test_series_created_by_a_parse_that_rolled_back_are_created_again(
    agent: Agent, session: Any, workers: Any, t0: float
) -> None:
    from perflab.db import unit_of_work

    run_id = _run(agent)
    lines = ["Linux 6.1.0 (vm) \t2026-11-22 \t_x86_64_\t(2 CPU)", "", PIDSTAT_HEADER]
    first = lines + _pidstat(range(0, 2), [794])
    second = _pidstat(range(2, 4), [794, 999])  # a new process: series that do not exist yet
    stamped = [[t0 + i * 0.5, 0.0, line] for i, line in enumerate(first + second)]
    batches = _batches("pidstat", "pidstat", "proxy", run_id, stamped, len(first))
    for b in batches:
        b["closed"] = False
    assert agent.send(batches[:1]).status_code == 200
    workers.drain()
    assert agent.send(batches[1:]).status_code == 200

    class Crash(Exception):
        pass

    # A worker creates pid 999's series and parses its samples, then dies before its commit.
    with pytest.raises(Crash), unit_of_work() as s:
        stream = workers.claim(s, run_id=uuid.UUID(run_id))
        assert stream is not None
        workers.advance(s, stream)
        s.flush()
        assert s.execute(text("SELECT count(*) FROM series WHERE run_id = :r AND labels->>'pid' = '999'"),
                         {"r": run_id}).scalar()
        raise Crash
    assert workers.drain() == 1
    stored = _stored(session, run_id)
    new = session.execute(text("SELECT id FROM series WHERE run_id = :r AND labels->>'pid' = '999'"),
                          {"r": run_id}).scalars().all()
    session.commit()
    # Its samples are under series that exist, not under the ids of the rolled-back rows.
    assert new and all(stored[sid] == 2 for sid in new)
    metrics = len(new)
    assert sum(stored.values()) == metrics * (2 + 4)  # pid 794: 4 seconds, pid 999: 2


def test_a_reparse_makes_new_series_that_later_batches_use(
    agent: Agent, session: Any, workers: Any, t0: float
) -> None:
    from perflab.cli import main

    run_id = _run(agent)
    batches = _batches("vmstat", "vmstat", "proxy", run_id, _lines(RUN1 / "vmstat.txt", t0), 3)
    for b in batches:
        b["closed"] = False
    half = len(batches) // 2
    assert agent.send(batches[:half]).status_code == 200
    workers.drain()
    before = session.execute(text("SELECT min(id) FROM series WHERE run_id = :r"), {"r": run_id}).scalar()
    session.commit()
    # `perflab reparse` deletes the stream's series and parses it again into new rows; the worker's next
    # batches of that stream must go to those, not to the ids it saw before.
    assert main(["reparse", run_id]) == 0
    assert agent.send(batches[half:]).status_code == 200
    workers.drain()
    stored = _stored(session, run_id)
    after = session.execute(text("SELECT min(id) FROM series WHERE run_id = :r"), {"r": run_id}).scalar()
    session.commit()
    assert after > before
    rows = sum(1 for b in batches for line in b["lines"] if line[2].strip()[:1].isdigit()) - 1  # since boot
    assert set(stored.values()) == {rows}


def test_a_pass_leaves_a_stream_another_worker_holds_and_takes_the_others(
    agent: Agent, session: Any, workers: Any, t0: float
) -> None:
    from perflab.db import unit_of_work

    run_id = _run(agent)
    assert agent.send(_streams(run_id, t0, closed=False)).status_code == 200
    with unit_of_work() as first:
        held = workers.claim(first)
        assert held is not None
        # The pass read both streams as candidates; it skips the held one without waiting for it.
        assert workers.parse_pass() == 1
        workers.advance(first, held)
    assert workers.parse_pass() == 0
    lag = session.execute(text("SELECT sum(max_seq - parsed_seq) FROM stream WHERE run_id = :r"),
                          {"r": run_id}).scalar()
    session.commit()
    assert lag == 0
