"""series chunks: samples as compact arrays instead of one row each

Moves every series' rows from `sample` into one `series_chunk` row per series (and back on downgrade),
a series at a time, so memory stays bounded by the longest series.

Revision ID: 20261123_series_chunks
Revises: 20261122_raw_chunk_parts
Create Date: 2026-11-23 16:30:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from perflab.series import codec

revision: str = '20261123_series_chunks'
down_revision: str | None = '20261122_raw_chunk_parts'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

def upgrade() -> None:
    op.create_table('series_chunk',
    sa.Column('run_id', sa.UUID(), nullable=False),
    sa.Column('series_id', sa.BigInteger(), nullable=False),
    sa.Column('chunk', sa.BigInteger(), nullable=False),
    sa.Column('n', sa.Integer(), nullable=False),
    sa.Column('t0', sa.DateTime(timezone=True), nullable=False),
    sa.Column('t1', sa.DateTime(timezone=True), nullable=False),
    sa.Column('step_us', sa.BigInteger(), nullable=False),
    sa.Column('times', sa.LargeBinary(), nullable=True),
    sa.Column('vals', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_series_chunk_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('run_id', 'series_id', 'chunk', name=op.f('pk_series_chunk'))
    )
    conn = op.get_bind()
    insert = sa.text("INSERT INTO series_chunk (run_id, series_id, chunk, n, t0, t1, step_us, times, vals)"
                     " VALUES (:r, :s, 0, :n, :t0, :t1, :step, :times, :vals)")
    # Samples of runs deleted before (sample had no foreign key) have nowhere to go.
    keys = conn.execute(sa.text("SELECT DISTINCT s.run_id, s.series_id FROM sample s JOIN run ON run.id = s.run_id"
                                " ORDER BY 1, 2")).all()
    for run_id, series_id in keys:
        rows = conn.execute(sa.text("SELECT t, value FROM sample WHERE run_id = :r AND series_id = :s ORDER BY t"),
                            {"r": run_id, "s": series_id}).all()
        times = [codec.to_us(t) for t, _ in rows]
        t0, step, blob = codec.encode_times(times)
        conn.execute(insert, {"r": run_id, "s": series_id, "n": len(rows), "t0": codec.from_us(t0), "t1": codec.from_us(times[-1]),
                              "step": step, "times": blob, "vals": codec.encode_values([v for _, v in rows])})
    op.drop_table('sample')


def downgrade() -> None:
    op.create_table('sample',
    sa.Column('run_id', sa.UUID(), nullable=False),
    sa.Column('series_id', sa.BigInteger(), nullable=False),
    sa.Column('t', sa.DateTime(timezone=True), nullable=False),
    sa.Column('value', sa.Double(), nullable=False),
    sa.PrimaryKeyConstraint('run_id', 'series_id', 't', name=op.f('pk_sample'))
    )
    conn = op.get_bind()
    keys = conn.execute(sa.text("SELECT DISTINCT run_id, series_id FROM series_chunk ORDER BY 1, 2")).all()
    insert = sa.text("INSERT INTO sample (run_id, series_id, t, value) VALUES (:r, :s, :t, :v)")
    for run_id, series_id in keys:
        parts = [(codec.decode_times(codec.to_us(t0), step, n, times), codec.decode_values(vals))
                 for t0, step, n, times, vals in conn.execute(
                     sa.text("SELECT t0, step_us, n, times, vals FROM series_chunk"
                             " WHERE run_id = :r AND series_id = :s ORDER BY chunk"),
                     {"r": run_id, "s": series_id})]
        ts, vs = codec.merge(parts)
        conn.execute(insert, [{"r": run_id, "s": series_id, "t": codec.from_us(t), "v": v} for t, v in zip(ts, vs)])
    op.drop_table('series_chunk')

