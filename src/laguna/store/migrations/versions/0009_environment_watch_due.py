"""Environments keep when they next need watching (``laguna watch``, the
worker's ``watch`` job): the front end's watch pass says when its earliest
check or policy is due, so the job finds the environments to watch without
loading their languages.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("environments") as batch:
        batch.add_column(sa.Column("watch_due", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # in place, as 0005's: a batch copy would cascade-delete the environments' rows
    with op.batch_alter_table("environments", recreate="never") as batch:
        batch.drop_column("watch_due")
