"""verdict settings: the smallest meaningful change per metric family, per project

"Equivalent" needs a smallest meaningful change; the defaults live in perflab.stats.MARGINS and a
project's owners may change them (only the families they changed are stored).

Revision ID: 20261125_verdicts_margins
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:40:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_verdicts_margins'
down_revision: str | None = '20261125_scaling_cluster'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('verdict_settings',
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('margins', postgresql.JSONB(astext_type=sa.Text()), server_default='{}', nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_verdict_settings_project_id_project'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('project_id', name=op.f('pk_verdict_settings'))
    )


def downgrade() -> None:
    op.drop_table('verdict_settings')
