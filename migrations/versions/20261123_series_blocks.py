"""series blocks: a live batch's samples for every series of a stream in one row

Live ingest wrote one series_chunk row per series per batch (hundreds a second for one pidstat
stream); it now writes one series_block row per batch, merged into chunks when the stream closes.
Nothing to move up. Down, blocks of runs still streaming become chunks numbered after every chunk the
series had, so their order and every value survive.

Revision ID: 20261123_series_blocks
Revises: 20261123_members
Create Date: 2026-11-23 20:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from perflab.series import codec

revision: str = '20261123_series_blocks'
down_revision: str | None = '20261123_members'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Down: chunk numbers of former blocks, above any sample ordinal a series reaches.
_AFTER = 1 << 40


def upgrade() -> None:
    op.create_table('series_block',
    sa.Column('run_id', sa.UUID(), nullable=False),
    sa.Column('stream_id', sa.BigInteger(), nullable=False),
    sa.Column('block', sa.BigInteger(), nullable=False),
    sa.Column('n', sa.Integer(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_series_block_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('run_id', 'stream_id', 'block', name=op.f('pk_series_block'))
    )


def downgrade() -> None:
    conn = op.get_bind()
    insert = sa.text("INSERT INTO series_chunk (run_id, series_id, chunk, n, t0, t1, step_us, times, vals)"
                     " VALUES (:r, :s, :c, :n, :t0, :t1, :step, :times, :vals)")
    for run_id, block, data in conn.execute(
            sa.text("SELECT run_id, block, data FROM series_block ORDER BY run_id, stream_id, block")).all():
        for sid, (times, values) in codec.decode_block(data).items():
            if not times:
                continue
            times, values = codec.merge([(times, values)])
            t0, step, blob = codec.encode_times(times)
            conn.execute(insert, {"r": run_id, "s": sid, "c": _AFTER + block, "n": len(values),
                                  "t0": codec.from_us(t0), "t1": codec.from_us(times[-1]), "step": step,
                                  "times": blob, "vals": codec.encode_values(values)})
    op.drop_table('series_block')
