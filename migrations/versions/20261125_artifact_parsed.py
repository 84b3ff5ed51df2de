"""artifact.parsed: a config or sysctl snapshot's parsed form, stored with it so reads (comparisons, share
views, findings) do not parse its text again.

Nothing to move: snapshots stored before get theirs built on their first read, and kept.

Revision ID: 20261125_artifact_parsed
Revises: 20261125_profile_tree
Create Date: 2026-11-25 13:20:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_artifact_parsed'
down_revision: str | None = '20261125_profile_tree'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('artifact', sa.Column('parsed', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('artifact', 'parsed')
