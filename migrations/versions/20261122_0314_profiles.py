"""profiles: flame graphs of a run as folded stacks, with their function tables

Revision ID: 20261122_profiles
Revises: 20261122_compare
Create Date: 2026-11-22 03:14:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261122_profiles'
down_revision: str | None = '20261122_compare'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('profile',
    sa.Column('id', sa.UUID(), nullable=False),
    sa.Column('run_id', sa.UUID(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('role', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('format', sa.String(length=16), nullable=False),
    sa.Column('unit', sa.String(length=32), nullable=False),
    sa.Column('event', sa.String(length=200), nullable=True),
    sa.Column('total', sa.BigInteger(), nullable=False),
    sa.Column('frames', sa.Integer(), nullable=False),
    sa.Column('stacks', sa.Integer(), nullable=False),
    sa.Column('lossy', sa.Boolean(), nullable=False),
    sa.Column('tolerance', sa.Double(), nullable=True),
    sa.Column('warnings', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('folded_gz', sa.LargeBinary(), nullable=False),
    sa.Column('artifact_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['artifact_id'], ['artifact.id'], name=op.f('fk_profile_artifact_id_artifact'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_profile_project_id_project'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_profile_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_profile'))
    )
    op.create_index('ix_profile_project_id_created_at', 'profile', ['project_id', 'created_at'], unique=False)
    op.create_index(op.f('ix_profile_run_id'), 'profile', ['run_id'], unique=False)
    op.create_table('profile_function',
    sa.Column('profile_id', sa.UUID(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.UUID(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('self_value', sa.BigInteger(), nullable=False),
    sa.Column('total_value', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['profile_id'], ['profile.id'], name=op.f('fk_profile_function_profile_id_profile'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_profile_function_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('profile_id', 'rank', name=op.f('pk_profile_function'))
    )


def downgrade() -> None:
    op.drop_table('profile_function')
    op.drop_index(op.f('ix_profile_run_id'), table_name='profile')
    op.drop_index('ix_profile_project_id_created_at', table_name='profile')
    op.drop_table('profile')
