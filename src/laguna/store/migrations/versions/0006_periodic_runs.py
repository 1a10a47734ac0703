"""Periodic work of the engine's workers: one row per job and period, so that
a period's run is claimed by one worker of all those that share the store.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "periodic_runs",
        sa.Column("job", sa.String(64), primary_key=True),
        sa.Column("slot", sa.BigInteger(), primary_key=True),
        sa.Column("claimed_by", sa.String(255), nullable=False),
        sa.Column("claimed", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("periodic_runs")
