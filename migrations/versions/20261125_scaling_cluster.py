"""cluster: rate-limit failure counts shared by every server; change notices for live pages

rate_limit_miss holds the recent failures per (limiter, key) so N server processes enforce one
limit. Triggers on run and stream send NOTIFY perflab_run '<run id>' at commit of any change, so each
server keeps one poller per watched run, woken when it changes, instead of a query per viewer per
second (perflab/cluster/live.py). PostgreSQL folds identical notices of one transaction into one.

Revision ID: 20261125_scaling_cluster
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:20:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_scaling_cluster'
down_revision: str | None = '20261125_hardauth_devices'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('rate_limit_miss',
    sa.Column('limiter', sa.String(length=64), nullable=False),
    sa.Column('key_hash', sa.String(length=64), nullable=False),
    sa.Column('misses', postgresql.ARRAY(sa.DateTime(timezone=True)), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('limiter', 'key_hash', name=op.f('pk_rate_limit_miss'))
    )
    op.create_index(op.f('ix_rate_limit_miss_expires_at'), 'rate_limit_miss', ['expires_at'], unique=False)
    op.execute("""
    CREATE FUNCTION perflab_notify_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('perflab_run', NEW.id::text);
      RETURN NULL;
    END $$;
    CREATE FUNCTION perflab_notify_stream() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('perflab_run', NEW.run_id::text);
      RETURN NULL;
    END $$;
    CREATE TRIGGER run_notify AFTER INSERT OR UPDATE ON run
      FOR EACH ROW EXECUTE FUNCTION perflab_notify_run();
    CREATE TRIGGER stream_notify AFTER INSERT OR UPDATE ON stream
      FOR EACH ROW EXECUTE FUNCTION perflab_notify_stream();
    """)


def downgrade() -> None:
    op.execute("""
    DROP TRIGGER IF EXISTS stream_notify ON stream;
    DROP TRIGGER IF EXISTS run_notify ON run;
    DROP FUNCTION IF EXISTS perflab_notify_stream();
    DROP FUNCTION IF EXISTS perflab_notify_run();
    """)
    op.drop_index(op.f('ix_rate_limit_miss_expires_at'), table_name='rate_limit_miss')
    op.drop_table('rate_limit_miss')
