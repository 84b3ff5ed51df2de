"""share links keep the verdict margins in force when they were made

A shared "equivalent" must not change when an owner edits the project's margins later. Existing links
get NULL and keep reading the project's margins, as they did.

Revision ID: 20261125_share_link_margins
Revises: 20261125_workflow_trash
Create Date: 2026-11-25 13:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_share_link_margins'
down_revision: str | None = '20261125_workflow_trash'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('share_link', sa.Column('margins', postgresql.JSONB(astext_type=sa.Text()), nullable=True))


def downgrade() -> None:
    op.drop_column('share_link', 'margins')
