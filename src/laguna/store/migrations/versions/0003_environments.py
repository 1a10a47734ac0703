"""Environments, their packages, deployments and status reports.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "environments",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("language", sa.String(32), nullable=True),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("model", sa.JSON(), nullable=True),
        sa.Column("outputs", sa.JSON(), nullable=False),
        sa.Column("components", sa.JSON(), nullable=False),
        sa.Column("acquired_by", sa.String(36), nullable=True),
        sa.Column("acquired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_environments"),
        sa.UniqueConstraint("project_id", "name", name="uq_environments_project_id_name"),
    )
    op.create_index("ix_environments_project_id", "environments", ["project_id"])
    op.create_table(
        "environment_packages",
        sa.Column("environment_id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("version", sa.String(255), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("archive", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["environment_id"], ["environments.id"], ondelete="CASCADE",
                                name="fk_environment_packages_environment_id_environments"),
        sa.PrimaryKeyConstraint("environment_id", "name", "version",
                                name="pk_environment_packages"),
    )
    op.create_table(
        "deployments",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("environment_id", sa.String(36), nullable=False),
        sa.Column("operation", sa.String(16), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.Column("description", sa.JSON(), nullable=True),
        sa.Column("action", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("owner_host", sa.String(255), nullable=False),
        sa.Column("owner_pid", sa.Integer(), nullable=False),
        sa.Column("owner_started", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(["environment_id"], ["environments.id"], ondelete="CASCADE",
                                name="fk_deployments_environment_id_environments"),
        sa.PrimaryKeyConstraint("id", name="pk_deployments"),
    )
    op.create_index("ix_deployments_environment_id", "deployments", ["environment_id"])
    op.create_table(
        "status_reports",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("deployment_id", sa.String(36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("level", sa.String(16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("entity_id", sa.String(255), nullable=True),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["deployment_id"], ["deployments.id"], ondelete="CASCADE",
                                name="fk_status_reports_deployment_id_deployments"),
        sa.PrimaryKeyConstraint("id", name="pk_status_reports"),
        sa.UniqueConstraint("deployment_id", "position",
                            name="uq_status_reports_deployment_id_position"),
    )


def downgrade() -> None:
    op.drop_table("status_reports")
    op.drop_index("ix_deployments_environment_id", table_name="deployments")
    op.drop_table("deployments")
    op.drop_table("environment_packages")
    op.drop_index("ix_environments_project_id", table_name="environments")
    op.drop_table("environments")
