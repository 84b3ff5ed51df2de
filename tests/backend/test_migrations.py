"""The schema comes from the migrations; they go down and up again, and match the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from perflab.cli import migrate
from perflab.db import Base
from perflab.series import codec
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

from tests.conftest import FIXTURES


def _diff(engine: Engine) -> list[object]:
    import perflab.models  # noqa: F401

    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, Base.metadata))


def test_models_and_migrations_do_not_drift(engine: Engine) -> None:
    assert _diff(engine) == []


def test_migrations_down_and_up_again(engine: Engine, database_url: str) -> None:
    migrate(database_url, "head")
    tables_before = set(inspect(engine).get_table_names())
    from alembic import command
    from perflab.cli import _alembic_config

    cfg = _alembic_config()
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    command.downgrade(cfg, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    migrate(database_url, "head")
    assert set(inspect(engine).get_table_names()) == tables_before
    assert _diff(engine) == []


def test_every_growing_table_carries_run_id(engine: Engine) -> None:
    # Citus distributes by run_id: every table that grows with run data must have it.
    growing = {"raw_chunk", "raw_chunk_part", "series", "series_chunk", "series_block", "summary", "stream",
               "run_host", "profile", "profile_function"}
    for table in growing:
        cols = {c["name"] for c in inspect(engine).get_columns(table)}
        assert "run_id" in cols, table


def test_series_chunks_migration_moves_samples_down_and_up_exactly(
    client: Any, project: dict[str, Any], db_engine: Engine, database_url: str
) -> None:
    # A real import (vmstat with a since-boot row, pidstat per pid) in chunks; down to one row per
    # sample and up again, every value and timestamp must come back the same.
    from alembic import command
    from perflab.cli import _alembic_config
    from perflab.series.service import read_points
    from sqlalchemy.orm import Session

    run1 = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1"
    files = [{"name": n, "content": (run1 / n).read_text(), "role": "proxy"} for n in ("vmstat.txt", "pidstat.txt")]
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": files})
    assert r.status_code == 201, r.text

    def chunks() -> dict[Any, Any]:
        with Session(db_engine) as s:
            keys = s.execute(text("SELECT run_id, id FROM series")).all()
            return read_points(s, [(k[0], k[1]) for k in keys])

    before = chunks()
    assert sum(len(v) for _, v in before.values()) > 200
    cfg = _alembic_config()
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    db_engine.dispose()
    command.downgrade(cfg, "20261122_raw_chunk_parts")
    with db_engine.connect() as conn:
        rows = conn.execute(text("SELECT run_id, series_id, t, value FROM sample ORDER BY 1, 2, 3")).all()
    assert len(rows) == sum(len(v) for _, v in before.values())
    for run_id, sid, t, value in rows[:50] + rows[-50:]:
        times, values = before[(run_id, sid)]
        assert values[times.index(codec.to_us(t))] == value
    db_engine.dispose()
    migrate(database_url, "head")
    assert chunks() == before
    with db_engine.connect() as conn:
        # One chunk per series after the move, none left behind.
        assert conn.execute(text("SELECT count(*) FROM series_chunk")).scalar() == len(before)


def test_series_blocks_migration_keeps_a_live_runs_blocks_as_chunks_down(
    client: Any, project: dict[str, Any], db_engine: Engine, database_url: str
) -> None:
    # A run caught mid-stream by a downgrade: its blocks become chunks after the ones it had, and
    # every sample reads back the same; up again, the table is back and empty.
    from alembic import command
    from perflab.cli import _alembic_config
    from perflab.series.service import read_points, write_block
    from sqlalchemy.orm import Session

    vmstat = FIXTURES / "captures" / "nginx-proxy-buffers" / "default" / "run1" / "vmstat.txt"
    r = client.post(f"/api/projects/{project['slug']}/imports", json={"experiment": "default", "files": [
        {"name": "vmstat.txt", "content": vmstat.read_text(), "role": "proxy"}]})
    assert r.status_code == 201, r.text
    with Session(db_engine) as s:
        keys = [(k[0], k[1]) for k in s.execute(text("SELECT run_id, id FROM series")).all()]
        stream_id = s.execute(text("SELECT stream_id FROM series LIMIT 1")).scalar()
        before = read_points(s, keys)
        last = max(max(t) for t, _ in before.values())
        write_block(s, run_id=keys[0][0], stream_id=stream_id, block=10**6,
                    series=[(sid, [last + 1_000_000, last + 2_000_000], [1.25, -0.0]) for _, sid in keys])
        s.commit()
        live = read_points(s, keys)
    assert all(len(live[k][0]) == len(before[k][0]) + 2 for k in keys)
    cfg = _alembic_config()
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    db_engine.dispose()
    command.downgrade(cfg, "20261123_members")
    with db_engine.connect() as conn:
        parts: dict[Any, list[Any]] = {}
        for run_id, sid, t0, step, n, times, vals in conn.execute(text(
                "SELECT run_id, series_id, t0, step_us, n, times, vals FROM series_chunk ORDER BY 1, 2, chunk")):
            parts.setdefault((run_id, sid), []).append(
                (codec.decode_times(codec.to_us(t0), step, n, times), codec.decode_values(vals)))
    assert {k: codec.merge(p) for k, p in parts.items()} == live
    db_engine.dispose()
    migrate(database_url, "head")
    with Session(db_engine) as s:
        assert read_points(s, keys) == live
        assert s.execute(text("SELECT count(*) FROM series_block")).scalar() == 0
