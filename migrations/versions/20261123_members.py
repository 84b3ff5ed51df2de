"""project members with roles

Existing data: every existing project keeps being usable by the people who used it. Before this
revision every account could read and write every project, so each non-admin account becomes a
`member` of each existing project (write, no management). Admins need no rows (they see every
project) and appoint owners afterwards (`perflab project add-member SLUG EMAIL --role owner`).
Projects created from now on get their creator as owner.

Revision ID: 20261123_members
Revises: 20261123_validity_former_names
Create Date: 2026-11-23 16:30:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '20261123_members'
down_revision: str | None = '20261123_validity_former_names'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('project_member',
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_project_member_project_id_project'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_project_member_user_id_user'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('project_id', 'user_id', name=op.f('pk_project_member'))
    )
    op.create_index('ix_project_member_user_id', 'project_member', ['user_id'], unique=False)
    op.execute(
        """
        INSERT INTO project_member (project_id, user_id, role)
        SELECT p.id, u.id, 'member' FROM project p CROSS JOIN "user" u WHERE u.role <> 'admin'
        """
    )


def downgrade() -> None:
    op.drop_index('ix_project_member_user_id', table_name='project_member')
    op.drop_table('project_member')
