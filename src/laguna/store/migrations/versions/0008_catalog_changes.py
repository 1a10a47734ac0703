"""The counter of the catalog's commits (``catalog_changes``) and, on
PostgreSQL, its row and deferred triggers (:mod:`laguna.store.catalogchanges`).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from laguna.store import catalogchanges

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "catalog_changes",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("commits", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalog_changes")))
    catalogchanges.install(op.get_bind())


def downgrade() -> None:
    catalogchanges.remove(op.get_bind())
    op.drop_table("catalog_changes")
