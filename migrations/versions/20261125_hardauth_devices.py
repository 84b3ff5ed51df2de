"""known devices, one per browser; names of a saved comparison's experiments when it was saved

The known-device cookie was HMAC(secret, email): the same in every browser and on every login, valid a
year, surviving a password change. It becomes a random value per browser whose sha256 is kept in
known_device, replaced at each login, forgotten when the password changes. Cookies issued before do
not match any row: those browsers count towards the account's login limit until their next login.

comparison.experiment_names keeps the names at save time, so a rename does not show on a share link.
Comparisons saved before stay NULL and show the current names.

Revision ID: 20261125_hardauth_devices
Revises: 20261123_series_blocks
Create Date: 2026-11-25 10:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '20261125_hardauth_devices'
down_revision: str | None = '20261125_changepoints_webhooks'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('known_device',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_known_device_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_known_device')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_known_device_token_hash'))
    )
    op.create_index(op.f('ix_known_device_user_id'), 'known_device', ['user_id'], unique=False)
    op.add_column('comparison', sa.Column('experiment_names', postgresql.ARRAY(sa.String(length=200)), nullable=True))


def downgrade() -> None:
    op.drop_column('comparison', 'experiment_names')
    op.drop_index(op.f('ix_known_device_user_id'), table_name='known_device')
    op.drop_table('known_device')
