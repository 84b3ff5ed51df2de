"""comparisons, share links, decisions

Revision ID: 20261122_compare
Revises: 0001
Create Date: 2026-11-22 02:32:11.310064
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261122_compare'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('comparison',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('short_id', sa.String(length=16), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('baseline_experiment_id', sa.BigInteger(), nullable=False),
    sa.Column('experiment_ids', postgresql.ARRAY(sa.BigInteger()), nullable=False),
    sa.Column('run_ids', postgresql.ARRAY(sa.UUID()), nullable=False),
    sa.Column('view_state', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['baseline_experiment_id'], ['experiment.id'], name=op.f('fk_comparison_baseline_experiment_id_experiment'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_comparison_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_comparison_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_comparison')),
    sa.UniqueConstraint('short_id', name=op.f('uq_comparison_short_id'))
    )
    op.create_index(op.f('ix_comparison_project_id'), 'comparison', ['project_id'], unique=False)
    op.create_table('decision',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('experiment_id', sa.BigInteger(), nullable=False),
    sa.Column('component', sa.String(length=200), nullable=False),
    sa.Column('knob', sa.String(length=400), nullable=False),
    sa.Column('before', sa.Text(), nullable=False),
    sa.Column('after', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('rationale', sa.Text(), nullable=False),
    sa.Column('comparison_id', sa.BigInteger(), nullable=True),
    sa.Column('author_id', sa.BigInteger(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['author_id'], ['user.id'], name=op.f('fk_decision_author_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['comparison_id'], ['comparison.id'], name=op.f('fk_decision_comparison_id_comparison'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['experiment_id'], ['experiment.id'], name=op.f('fk_decision_experiment_id_experiment'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_decision_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_decision'))
    )
    op.create_index('ix_decision_experiment_id_updated_at', 'decision', ['experiment_id', 'updated_at'], unique=False)
    op.create_index(op.f('ix_decision_project_id'), 'decision', ['project_id'], unique=False)
    op.create_table('share_link',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('comparison_id', sa.BigInteger(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('hint', sa.String(length=16), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['comparison_id'], ['comparison.id'], name=op.f('fk_share_link_comparison_id_comparison'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_share_link_created_by_id_user'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_share_link')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_share_link_token_hash'))
    )
    op.create_index(op.f('ix_share_link_comparison_id'), 'share_link', ['comparison_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_share_link_comparison_id'), table_name='share_link')
    op.drop_table('share_link')
    op.drop_index(op.f('ix_decision_project_id'), table_name='decision')
    op.drop_index('ix_decision_experiment_id_updated_at', table_name='decision')
    op.drop_table('decision')
    op.drop_index(op.f('ix_comparison_project_id'), table_name='comparison')
    op.drop_table('comparison')
