"""webhooks: regression alerts of a project, their deliveries and what they announced

New tables only; nothing to move.

Revision ID: 20261125_changepoints_webhooks
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:30:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_changepoints_webhooks'
down_revision: str | None = '20261125_evidence_artifact_note'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('webhook',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('url', sa.String(length=2000), nullable=False),
    sa.Column('format', sa.String(length=16), nullable=False),
    sa.Column('events', postgresql.ARRAY(sa.String(length=32)), nullable=False),
    sa.Column('alpha', sa.Float(), nullable=False),
    sa.Column('secret', sa.String(length=64), nullable=False),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_webhook_created_by_id_user'),
                            ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_webhook_project_id_project'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook'))
    )
    op.create_index(op.f('ix_webhook_project_id'), 'webhook', ['project_id'], unique=False)
    op.create_table('webhook_delivery',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('webhook_id', sa.BigInteger(), nullable=False),
    sa.Column('event', sa.String(length=32), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('response_status', sa.Integer(), nullable=True),
    sa.Column('delivered_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['webhook_id'], ['webhook.id'], name=op.f('fk_webhook_delivery_webhook_id_webhook'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_delivery'))
    )
    op.create_index('ix_webhook_delivery_due', 'webhook_delivery', ['status', 'next_attempt_at'], unique=False)
    op.create_index(op.f('ix_webhook_delivery_webhook_id'), 'webhook_delivery', ['webhook_id'], unique=False)
    op.create_table('webhook_seen',
    sa.Column('webhook_id', sa.BigInteger(), nullable=False),
    sa.Column('key', sa.String(length=300), nullable=False),
    sa.ForeignKeyConstraint(['webhook_id'], ['webhook.id'], name=op.f('fk_webhook_seen_webhook_id_webhook'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('webhook_id', 'key', name=op.f('pk_webhook_seen'))
    )


def downgrade() -> None:
    op.drop_table('webhook_seen')
    op.drop_index(op.f('ix_webhook_delivery_webhook_id'), table_name='webhook_delivery')
    op.drop_index('ix_webhook_delivery_due', table_name='webhook_delivery')
    op.drop_table('webhook_delivery')
    op.drop_index(op.f('ix_webhook_project_id'), table_name='webhook')
    op.drop_table('webhook')
