"""project.validity: per-project thresholds that make a run invalid (error responses, socket errors);
experiment.former_names: names before a rename, so old compare links still resolve

Revision ID: 20261123_truth
Revises: 20261122_raw_chunk_parts
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "20261123_truth"
down_revision = "20261122_raw_chunk_parts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("project", sa.Column("validity", postgresql.JSONB(astext_type=sa.Text()), nullable=False,
                                       server_default="{}"))
    op.add_column("experiment", sa.Column("former_names", postgresql.ARRAY(sa.String(length=200)), nullable=False,
                                          server_default="{}"))


def downgrade() -> None:
    op.drop_column("experiment", "former_names")
    op.drop_column("project", "validity")
