"""trash and exclusion: runs, experiments and profiles are deleted softly (restorable for 30 days, then
purged); a run can be excluded from every statistic with a reason; edits carry a version.

Nothing to move: every existing row is live, included and at version 1.

Revision ID: 20261125_workflow_trash
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '20261125_workflow_trash'
down_revision: str | None = '20261125_verdicts_margins'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ('run', 'experiment', 'profile'):
        op.add_column(table, sa.Column('deleted_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('run', sa.Column('excluded', sa.Boolean(), server_default='false', nullable=False))
    op.add_column('run', sa.Column('excluded_reason', sa.Text(), server_default='', nullable=False))
    for table in ('experiment', 'note', 'decision'):
        op.add_column(table, sa.Column('version', sa.Integer(), server_default='1', nullable=False))


def downgrade() -> None:
    for table in ('decision', 'note', 'experiment'):
        op.drop_column(table, 'version')
    op.drop_column('run', 'excluded_reason')
    op.drop_column('run', 'excluded')
    for table in ('profile', 'experiment', 'run'):
        op.drop_column(table, 'deleted_at')
