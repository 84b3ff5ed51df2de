"""Parsing off the request path (the default; PERFLAB_PARSE_WORKERS=false turns it off): the request stores raw lines and answers;
parse workers claim streams with SKIP LOCKED, parse in seq order, and a crash loses or doubles nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from perflab.series.service import read_points
from sqlalchemy import text

from tests.ingest.test_ingest import CAPTURE, Agent, _batches, _lines, _run, _state

RUN1 = CAPTURE / "default" / "run1"


def _parse_in_requests(monkeypatch: pytest.MonkeyPatch, inline: bool) -> None:
    """inline: requests parse what they store (PERFLAB_PARSE_WORKERS=false); else they leave it to workers."""
    from perflab.config import get_settings

    monkeypatch.setenv("PERFLAB_PARSE_WORKERS", "false" if inline else "true")
    get_settings.cache_clear()


@pytest.fixture
def app(app: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The app, started without its parse worker thread: each test decides when a worker parses (as a
    `perflab worker` host would). Requests still leave parsing to workers (the `workers` fixture)."""
    _parse_in_requests(monkeypatch, inline=True)
    return app


@pytest.fixture
def workers(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The workers module, with requests from now on storing raw lines only (the default)."""
    from perflab.ingest import workers

    _parse_in_requests(monkeypatch, inline=False)
    return workers


@pytest.fixture
def agent(app: Any, agent_token: str) -> Agent:
    one = Agent(app, agent_token)
    assert one.hello().status_code == 200
    return one


@pytest.fixture
def t0() -> float:
    return time.time()


@pytest.fixture
def expected(agent: Agent, session: Any, monkeypatch: pytest.MonkeyPatch, t0: float, workers: Any) -> dict[str, Any]:
    """The state of the same batches parsed in the request (the contract the workers must meet)."""
    _parse_in_requests(monkeypatch, inline=True)
    ref = _run(agent)
    assert agent.send(_streams(ref, t0)).status_code == 200
    session.commit()
    _parse_in_requests(monkeypatch, inline=False)
    return _state(session, ref)


@pytest.fixture
def live_run(agent: Agent, t0: float, workers: Any) -> str:
    """A run the proxy joined with vmstat and pidstat, started at t0."""
    run_id = _run(agent)
    assert agent.c.post(f"/api/agent/runs/{run_id}/join", json={
        "agent_id": agent.agent_id, "role": "proxy", "streams": ["vmstat", "pidstat"]}).status_code == 200
    assert agent.c.post(f"/api/agent/runs/{run_id}/start", json={"started_at": t0}).status_code == 200
    return run_id


def _streams(run_id: str, t0: float, closed: bool = True) -> list[dict[str, Any]]:
    """vmstat and pidstat of one capture, a few lines per batch (many chunks per stream)."""
    out = (_batches("vmstat", "vmstat", "proxy", run_id, _lines(RUN1 / "vmstat.txt", t0), 3)
           + _batches("pidstat", "pidstat", "proxy", run_id, _lines(RUN1 / "pidstat.txt", t0), 40))
    if not closed:
        for b in out:
            b["closed"] = False
    return out


def test_ingest_answers_before_parsing_and_the_lag_shows_then_returns_to_zero(
    agent: Agent, client: TestClient, session: Any, workers: Any, expected: dict[str, Any], live_run: str, t0: float,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from perflab.cli import main

    batches = _streams(live_run, t0)
    r = agent.send(batches)
    assert r.status_code == 200 and not any(a["duplicate"] for a in r.json()["acked"])
    session.commit()
    # Answered with the raw lines stored and nothing parsed: the run page says how far behind parsing is.
    stored = _state(session, live_run)
    assert stored["chunks"] == len(batches) and stored["samples"] == 0
    lag = client.get(f"/api/runs/{live_run}").json()["parse_lag"]
    assert lag["chunks"] == len(batches) and lag["seconds"] >= 0
    time.sleep(0.2)  # the lag's age is what is tested here: it grows while nothing parses
    assert client.get(f"/api/runs/{live_run}").json()["parse_lag"]["seconds"] >= 0.2
    assert main(["run", "show", live_run]) == 0
    assert f"parsing {len(batches)} batches behind (oldest received" in capsys.readouterr().out

    assert workers.drain() == 2  # one claim per stream: every contiguous chunk in one transaction
    session.commit()
    assert _state(session, live_run) == expected
    assert client.get(f"/api/runs/{live_run}").json()["parse_lag"] == {"chunks": 0, "seconds": 0.0}
    assert main(["run", "show", live_run]) == 0
    assert "behind" not in capsys.readouterr().out
    assert workers.drain() == 0  # nothing left: no stream is claimed again

    # Finishing the run needs no worker: both streams were closed and parsed, so it is complete.
    assert agent.c.post(f"/api/agent/runs/{live_run}/finish", json={"exit_code": 0}).status_code == 200
    detail = client.get(f"/api/runs/{live_run}").json()
    assert detail["status"] == "complete", detail["status_reasons"]
    assert any(s["kind"] == "pidstat-averages" for s in detail["summaries"])


def test_a_run_finished_before_its_streams_are_parsed_is_judged_by_the_worker_that_finishes_them(
    agent: Agent, client: TestClient, session: Any, workers: Any, expected: dict[str, Any], live_run: str, t0: float
) -> None:
    assert agent.send(_streams(live_run, t0)).status_code == 200
    # The finish answers at once, without parsing: the run waits for its streams, and says so.
    assert agent.c.post(f"/api/agent/runs/{live_run}/finish", json={"exit_code": 0}).status_code == 200
    detail = client.get(f"/api/runs/{live_run}").json()
    assert detail["status"] == "running" and detail["parse_lag"]["chunks"] > 0
    assert not detail["summaries"]
    assert workers.wait_parsed(uuid.UUID(live_run), timeout=0.2) is False  # no worker runs in this process
    # The worker that parses the closing chunks finishes the streams and judges the run in that commit.
    assert workers.drain() == 2
    assert workers.wait_parsed(uuid.UUID(live_run), timeout=5)
    session.commit()
    assert _state(session, live_run) == expected
    detail = client.get(f"/api/runs/{live_run}").json()
    assert detail["status"] == "complete", detail["status_reasons"]
    assert any(s["kind"] == "pidstat-averages" for s in detail["summaries"])


def test_a_parse_rolled_back_mid_stream_loses_and_doubles_no_sample(
    agent: Agent, session: Any, workers: Any, expected: dict[str, Any], t0: float
) -> None:
    from perflab.db import unit_of_work

    run_id = _run(agent)
    batches = _streams(run_id, t0)
    # Half the chunks first: a worker parses them and commits.
    half = [b for b in batches if b["seq"] <= 4]
    assert agent.send(half).status_code == 200
    assert workers.drain() == 2
    assert agent.send([b for b in batches if b["seq"] > 4]).status_code == 200

    class Crash(Exception):
        pass

    # A worker parses the rest (and finishes the stream), its samples written, then dies before its commit.
    with pytest.raises(Crash), unit_of_work() as s:
        stream = workers.claim(s, run_id=uuid.UUID(run_id))
        assert stream is not None and stream.name == "vmstat" and stream.parsed_seq == 4
        workers.advance(s, stream)
        s.flush()
        assert stream.parsed_seq == stream.max_seq and stream.closed_at is not None
        raise Crash
    session.commit()
    assert session.execute(text("SELECT parsed_seq, closed_at FROM stream WHERE run_id = :r AND name = 'vmstat'"),
                           {"r": run_id}).one() == (4, None)
    assert workers.drain() == 1
    session.commit()
    assert _state(session, run_id) == expected


def test_two_workers_never_parse_one_stream_at_once(agent: Agent, session: Any, workers: Any, t0: float) -> None:
    from perflab.db import unit_of_work

    run_id = _run(agent)
    assert agent.send(_streams(run_id, t0, closed=False)).status_code == 200
    with unit_of_work() as first:
        held = workers.claim(first)
        assert held is not None
        # While the first worker holds its stream, a second one gets the other stream, then nothing.
        with unit_of_work() as second:
            other = workers.claim(second)
            assert other is not None and other.id != held.id
            assert workers.parse_one() is False
            workers.advance(second, other)
        parsed_by_second = session.execute(text("SELECT parsed_seq FROM stream WHERE id = :s"),
                                           {"s": other.id}).scalar()
        session.commit()
        assert parsed_by_second == other.max_seq
        assert workers.drain() == 0  # the held stream is still skipped, never waited for
        workers.advance(first, held)
    session.commit()
    assert workers.drain() == 0
    lag = session.execute(text("SELECT sum(max_seq - parsed_seq) FROM stream WHERE run_id = :r"),
                          {"r": run_id}).scalar()
    assert lag == 0


def test_a_batch_is_answered_while_a_worker_parses_its_stream(
    agent: Agent, session: Any, workers: Any, t0: float
) -> None:
    from perflab.db import unit_of_work

    run_id = _run(agent)
    batches = _streams(run_id, t0, closed=False)
    assert agent.send([b for b in batches if b["seq"] <= 2]).status_code == 200
    with unit_of_work() as parsing:
        held = workers.claim(parsing)
        assert held is not None
        # The worker's transaction is open on that stream: the next batches of it are stored and
        # answered now, not after the parse (a row lock on the stream would hold them until its commit).
        answers: list[int] = []
        sender = threading.Thread(target=lambda: answers.append(
            agent.send([b for b in batches if b["seq"] > 2]).status_code))
        sender.start()
        sender.join(10)
        assert answers == [200]
        workers.advance(parsing, held)
    workers.drain()
    session.commit()
    lag = session.execute(text("SELECT sum(max_seq - parsed_seq) FROM stream WHERE run_id = :r"),
                          {"r": run_id}).scalar()
    assert lag == 0


def test_a_pass_gives_every_stream_a_turn_before_any_gets_a_second(
    agent: Agent, session: Any, workers: Any, t0: float
) -> None:
    run_id = _run(agent)
    batches = _streams(run_id, t0, closed=False)
    first = [b for b in batches if b["seq"] == 1]
    assert agent.send(first).status_code == 200
    seen: set[int] = set()
    assert workers.parse_one(seen=seen)
    # The stream just parsed gets its next batch (live agents send one a second): the pass still goes
    # to the other stream, which would otherwise wait behind it.
    again = session.execute(text("SELECT name FROM stream WHERE id = :s"), {"s": next(iter(seen))}).scalar()
    session.commit()
    assert agent.send([b for b in batches if b["seq"] == 2 and b["stream"] == again]).status_code == 200
    assert workers.parse_one(seen=seen)
    assert len(seen) == 2
    assert workers.parse_one(seen=seen) is False  # the pass is over; the next one takes the new batch
    assert workers.parse_pass() == 1


def _long_vmstat(t0: float) -> list[list[Any]]:
    """Every capture's vmstat rows under one header, ten times over: a stream of ~1,600 lines."""
    rows: list[str] = []
    for path in sorted(CAPTURE.glob("*/run*/vmstat.txt")):
        rows += [ln for ln in path.read_text().splitlines()[3:] if ln.strip()]
    header = (RUN1 / "vmstat.txt").read_text().splitlines()[:2]
    lines = header + rows * 10
    return [[t0 + i * 0.01, 1000.0 + i * 0.01, line] for i, line in enumerate(lines)]


def test_a_worker_process_killed_mid_stream_loses_and_doubles_no_sample(
    agent: Agent, session: Any, monkeypatch: pytest.MonkeyPatch, database_url: str, workers: Any
) -> None:
    lines = _long_vmstat(time.time())
    _parse_in_requests(monkeypatch, inline=True)
    ref = _run(agent)
    assert agent.send(_batches("vmstat", "vmstat", "proxy", ref, lines, 100)).status_code == 200
    session.commit()
    expected = _state(session, ref)
    assert expected["samples"] > 10_000
    _parse_in_requests(monkeypatch, inline=False)
    runs = [_run(agent) for _ in range(4)]
    for run_id in runs:
        # One line per chunk: each stream is a long parse (~1,600 chunks in one transaction).
        batches = _batches("vmstat", "vmstat", "proxy", run_id, lines, 1)
        for i in range(0, len(batches), 500):
            assert agent.send(batches[i:i + 500]).status_code == 200
    env = {**os.environ, "PERFLAB_DATABASE_URL": database_url, "PERFLAB_PARSE_WORKERS": "true"}
    proc = subprocess.Popen([sys.executable, "-m", "perflab.cli", "worker", "--poll", "0.2"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Kill it while it holds a parse transaction open (its connection is named in pg_stat_activity).
        deadline = time.monotonic() + 60
        busy = False
        while time.monotonic() < deadline and not busy:
            busy = bool(session.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = :n AND xact_start IS NOT NULL"
                " AND datname = current_database()"), {"n": workers.APPLICATION_NAME}).scalar())
            session.commit()
            time.sleep(0.01)
        assert busy, "the worker never started parsing"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(10) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # PostgreSQL notices the dead client, rolls its transaction back and frees the stream.
    deadline = time.monotonic() + 30
    while session.execute(text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :n"),
                          {"n": workers.APPLICATION_NAME}).scalar() and time.monotonic() < deadline:
        session.commit()
        time.sleep(0.05)
    session.commit()
    unparsed = session.execute(text("SELECT count(*) FROM stream WHERE run_id = ANY(CAST(:r AS uuid[]))"
                                    " AND parsed_seq < max_seq"), {"r": runs}).scalar()
    assert unparsed >= 1  # killed mid-run: at least the stream it held is still to parse
    workers.drain()
    session.commit()
    for run_id in runs:
        got = _state(session, run_id)
        assert {k: got[k] for k in ("samples", "sum", "series", "lines")} == \
            {k: expected[k] for k in ("samples", "sum", "series", "lines")}, run_id


def test_every_serve_process_runs_a_worker_that_a_batch_wakes(
    agent: Agent, agent_token: str, session: Any, workers: Any, expected: dict[str, Any], t0: float
) -> None:
    from perflab.main import create_app

    # A server started with the default settings: its lifespan starts the parse worker (LISTEN perflab_parse).
    with TestClient(create_app()) as server:
        server.headers["Authorization"] = f"Bearer {agent_token}"
        agent.c = server
        run_id = _run(agent)
        assert agent.send(_streams(run_id, t0)).status_code == 200
        # Nothing in this thread parses: the server's own worker does, woken by the batch's notice.
        assert workers.wait_parsed(uuid.UUID(run_id), timeout=20)
        lag = server.get(f"/api/runs/{run_id}").json()["parse_lag"]
        assert lag == {"chunks": 0, "seconds": 0.0}
    session.commit()
    assert _state(session, run_id) == expected


# -- what workers keep between batches, and what they no longer write per batch: the pass's candidate list,
# the series ids a stream's batches reuse, the samples a live series counts (shortcuts taken for speed: a
# claim query per stream, ~300 series rows read back and updated per pidstat batch), held to what the slow
# way gave.

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
    first = lines + _pidstat(range(2), [794])
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
