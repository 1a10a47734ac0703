"""What a Murano installation kept that laguna's store did not (``laguna
takeover murano``, docs/TAKEOVER.md): status reports' ``details``,
environments' and templates' ``description_text``, packages'
``supplier_logo``, and the ``api_stats`` table of the original's per-host API
statistics, kept as history and shown by ``GET /v1/stats``.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("status_reports") as batch:
        batch.add_column(sa.Column("details", sa.Text(), nullable=True))
    with op.batch_alter_table("environments") as batch:
        batch.add_column(sa.Column("description_text", sa.Text(), nullable=True))
    with op.batch_alter_table("environment_templates") as batch:
        batch.add_column(sa.Column("description_text", sa.Text(), nullable=True))
    with op.batch_alter_table("packages") as batch:
        batch.add_column(sa.Column("supplier_logo", sa.LargeBinary(), nullable=True))
    op.create_table(
        "api_stats",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("request_count", sa.BigInteger(), nullable=True),
        sa.Column("error_count", sa.BigInteger(), nullable=True),
        sa.Column("average_response_time", sa.Float(), nullable=True),
        sa.Column("requests_per_tenant", sa.Text(), nullable=True),
        sa.Column("requests_per_second", sa.Float(), nullable=True),
        sa.Column("errors_per_second", sa.Float(), nullable=True),
        sa.Column("cpu_count", sa.Integer(), nullable=True),
        sa.Column("cpu_percent", sa.Float(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_stats")))


def downgrade() -> None:
    op.drop_table("api_stats")
    # in place, as 0005's and 0009's: a batch copy would cascade-delete the rows
    # that point at these tables
    for table, column in (("packages", "supplier_logo"),
                          ("environment_templates", "description_text"),
                          ("environments", "description_text"),
                          ("status_reports", "details")):
        with op.batch_alter_table(table, recreate="never") as batch:
            batch.drop_column(column)
