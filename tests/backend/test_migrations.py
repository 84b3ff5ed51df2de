"""The schema comes from the migrations; they go down and up again, and match the models."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from perflab.cli import migrate
from perflab.db import Base
from sqlalchemy import inspect
from sqlalchemy.engine import Engine


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
    growing = {"raw_chunk", "raw_chunk_part", "series", "sample", "summary", "stream", "run_host", "profile",
               "profile_function"}
    for table in growing:
        cols = {c["name"] for c in inspect(engine).get_columns(table)}
        assert "run_id" in cols, table
