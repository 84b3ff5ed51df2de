"""Outages lose nothing: every stream ends with every line exactly once (RELIABILITY.md 19-21)."""

from __future__ import annotations

import json
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.system.harness import (
    Agent,
    Server,
    ThrowawayPostgres,
    counting_command,
    wait_for,
)


@pytest.fixture
def pg(monkeypatch: pytest.MonkeyPatch) -> Any:
    import tempfile

    # Not under pytest's 0700 tmp dirs: the postgres server runs as an unprivileged user.
    pg = ThrowawayPostgres(Path(tempfile.mkdtemp(prefix="perflab-faults-pg-")))
    engine = create_engine(pg.url(), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("CREATE DATABASE perflab"))
    engine.dispose()
    monkeypatch.setenv("PERFLAB_DATABASE_URL", pg.url("perflab"))
    yield pg
    from perflab.db import set_engine

    set_engine(None)
    pg.cleanup()


def _setup(pg: ThrowawayPostgres, tmp_path: Path) -> tuple[Server, str, Any]:
    from perflab.cli import migrate
    from perflab.db import make_engine, set_engine

    from tests.system.harness import make_project_and_token

    url = pg.url("perflab")
    migrate(url)
    engine = make_engine(url)
    set_engine(engine)
    token = make_project_and_token("faults")
    server = Server(url, tmp_path / "home")
    server.start()
    return server, token, engine


def _load_lines(engine: Any, run_id: str) -> list[str]:
    from perflab.ingest.pipeline import decode_lines

    with engine.connect() as conn:
        chunks = conn.execute(text(
            "SELECT c.data_gz FROM raw_chunk c JOIN stream s ON s.id = c.stream_id "
            "WHERE c.run_id = :r AND s.name = 'load' ORDER BY c.seq"), {"r": run_id}).scalars().all()
    return [line for data in chunks for _, _, line in decode_lines(data)]


def _contiguous(engine: Any, run_id: str, name: str) -> tuple[int, int]:
    with engine.connect() as conn:
        seqs = conn.execute(text(
            "SELECT c.seq FROM raw_chunk c JOIN stream s ON s.id = c.stream_id "
            "WHERE c.run_id = :r AND s.name = :n ORDER BY c.seq"), {"r": run_id, "n": name}).scalars().all()
    assert seqs == list(range(1, len(seqs) + 1)), f"{name}: gaps in {seqs}"
    return len(seqs), seqs[-1] if seqs else 0


def _run_in_background(agent: Agent, seconds: float) -> tuple[threading.Thread, dict[str, Any]]:
    result: dict[str, Any] = {}

    def go() -> None:
        out = agent.run("--project", "faults", "--experiment", "outage", "--wait-for", "proxy", "--json", "--",
                        *counting_command(seconds), timeout=seconds + 240)
        result["out"] = out

    t = threading.Thread(target=go)
    t.start()
    return t, result


def _run_id(engine: Any) -> str:
    def find() -> str | None:
        try:
            with engine.connect() as conn:
                return conn.execute(text("SELECT id::text FROM run WHERE started_at IS NOT NULL")).scalar()
        except Exception:  # noqa: BLE001 - the database may be the thing that is down
            return None
    return str(wait_for(find, 60, "the run to start"))


def test_server_killed_for_30s_and_postgres_crashing_mid_run_lose_no_line(pg: ThrowawayPostgres,
                                                                        tmp_path: Path) -> None:
    server, token, engine = _setup(pg, tmp_path)
    agent = Agent(server, token, tmp_path / "proxy")
    try:
        # Three streams, as RELIABILITY 20 asks: the load's output, vmstat and pidstat (of the load).
        agent.daemon("--role", "proxy", "--collect", "vmstat", "--collect", "pidstat:python")
        time.sleep(3)
        runner, result = _run_in_background(agent, 70)
        run_id = _run_id(engine)
        time.sleep(4)
        server.kill()                      # the API process dies mid-run ...
        time.sleep(30)
        server.start()                     # ... and comes back 30 s later
        time.sleep(5)
        pg.crash()                         # then PostgreSQL stops abruptly ...
        time.sleep(10)
        pg.start()                         # ... and restarts with crash recovery
        runner.join()
        out = result["out"]
        assert out.returncode == 0, out.stderr[-3000:]
        assert json.loads(out.stdout.strip().splitlines()[-1])["run_id"] == run_id
        wait_for(lambda: _status(engine, run_id) in ("complete", "partial"), 120, "the run to end")
    finally:
        agent.stop_daemon()
        server.stop()
        engine.dispose()
    # What the load command printed, exactly once each, in order.
    assert _load_lines(engine, run_id) == [f"line {i}" for i in range(1, 701)]
    _contiguous(engine, run_id, "load")
    n, _ = _contiguous(engine, run_id, "vmstat")
    assert n > 20
    n, _ = _contiguous(engine, run_id, "pidstat:python")
    assert n > 20
    assert _status(engine, run_id) == "complete", _reasons(engine, run_id)


def test_daemon_killed_while_the_server_is_down_delivers_what_it_sampled(pg: ThrowawayPostgres,
                                                                         tmp_path: Path) -> None:
    server, token, engine = _setup(pg, tmp_path)
    agent = Agent(server, token, tmp_path / "proxy")
    try:
        agent.daemon("--role", "proxy", "--collect", "vmstat")
        time.sleep(3)
        runner, result = _run_in_background(agent, 40)
        run_id = _run_id(engine)
        started = time.time()
        time.sleep(5)
        server.kill()
        time.sleep(4)
        agent.stop_daemon(signal.SIGKILL)  # spooled batches exist only on disk now
        killed_at = time.time()
        time.sleep(2)
        agent.daemon("--role", "proxy", "--collect", "vmstat")
        time.sleep(6)
        server.start()
        runner.join()
        assert result["out"].returncode == 0, result["out"].stderr[-3000:]
        wait_for(lambda: _status(engine, run_id) in ("complete", "partial"), 120, "the run to end")
    finally:
        agent.stop_daemon()
        server.stop()
    _contiguous(engine, run_id, "vmstat")
    assert _load_lines(engine, run_id) == [f"line {i}" for i in range(1, 401)]
    from perflab.series.service import read_points
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        sid = session.execute(text("SELECT id FROM series WHERE run_id = :r AND key = 'sy'"),
                              {"r": run_id}).scalar_one()
        times = read_points(session, [(uuid.UUID(run_id), sid)])[(uuid.UUID(run_id), sid)][0]
        seconds = {t // 1_000_000 for t in times}
    engine.dispose()
    # Every second vmstat sampled between the run start and the SIGKILL arrived.
    expected = set(range(int(started) + 2, int(killed_at) - 1))
    assert expected <= set(seconds), sorted(expected - set(seconds))


def _status(engine: Any, run_id: str) -> str | None:
    try:
        from perflab.db import unit_of_work
        from perflab.ingest import service
        from perflab.runs.models import Run

        with unit_of_work() as s:
            run = s.get(Run, uuid.UUID(run_id))
            if run is None:
                return None
            service.evaluate(s, run=run)
            return run.status
    except Exception:  # noqa: BLE001 - retried by wait_for
        return None


def _reasons(engine: Any, run_id: str) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT status_reasons FROM run WHERE id = :r"), {"r": run_id}).scalar())
