"""Environments keep the actions their deployed objects offer, as the last
run left them, so that ``laguna status`` lists them without loading the
blueprint's language (:mod:`laguna.deploy.readonly`).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("environments") as batch:
        batch.add_column(sa.Column("actions", sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite drops the column in place (3.35+): a batch copy of the table would
    # drop the old one, and with it (ON DELETE CASCADE) the environments' packages,
    # deployments and sessions
    with op.batch_alter_table("environments", recreate="never") as batch:
        batch.drop_column("actions")
