"""stream.refused: lines of batches refused as malformed, so a poison batch leaves a gap, not a stall

Revision ID: 20261123_stream_refused
Revises: 20261122_raw_chunk_parts
Create Date: 2026-11-23 16:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '20261123_stream_refused'
down_revision: str | None = '20261122_raw_chunk_parts'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('stream', sa.Column('refused', sa.BigInteger(), server_default='0', nullable=False))


def downgrade() -> None:
    op.drop_column('stream', 'refused')
