"""artifact.note: why an imported file (or part of a paste) was kept as an attachment, not read

Revision ID: 20261125_evidence_artifact_note
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '20261125_evidence_artifact_note'
down_revision: str | None = '20261123_series_blocks'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('artifact', sa.Column('note', sa.String(length=1000), server_default='', nullable=False))


def downgrade() -> None:
    op.drop_column('artifact', 'note')
