"""profiles store their call tree (profile.tree_z), built once at upload, read by the tree and diff
views instead of parsing the folded stacks on every read.

Existing profiles keep a null tree_z: the first read builds it (or `perflab profile derive --all`).

Revision ID: 20261125_profile_tree
Revises: 20261125_share_link_margins
Create Date: 2026-11-25 13:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '20261125_profile_tree'
down_revision: str | None = '20261125_share_link_margins'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('profile', sa.Column('tree_z', sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    op.drop_column('profile', 'tree_z')
