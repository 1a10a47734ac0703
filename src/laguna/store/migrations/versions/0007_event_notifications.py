"""On PostgreSQL, the store publishes its changes: triggers notify the channel
``laguna_events`` with an environment's id when a status report is inserted,
a deployment inserted or its state changed, an environment's status changed
or the environment deleted (:mod:`laguna.store.publication`). Nothing on
SQLite, whose readers poll.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

from alembic import op

from laguna.store import publication

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    publication.install(op.get_bind())


def downgrade() -> None:
    publication.remove(op.get_bind())
