"""The API's tables: identity, configuration sessions, environment templates,
categories, the engine's task queue and instance statistics; environments
gain the description the API edits before their first deployment.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import typing as t

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _stamps() -> list[sa.Column[t.Any]]:
    return [sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.Column("updated", sa.DateTime(timezone=True), nullable=False)]


def upgrade() -> None:
    with op.batch_alter_table("environments") as batch:
        batch.add_column(sa.Column("description", sa.JSON(), nullable=True))
    op.create_table(
        "projects",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_projects"),
        sa.UniqueConstraint("name", name="uq_projects_name"),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "memberships",
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE",
                                name="fk_memberships_project_id_projects"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_memberships_user_id_users"),
        sa.PrimaryKeyConstraint("project_id", "user_id", name="pk_memberships"),
    )
    op.create_table(
        "tokens",
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="CASCADE",
                                name="fk_tokens_project_id_projects"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE",
                                name="fk_tokens_user_id_users"),
        sa.PrimaryKeyConstraint("digest", name="pk_tokens"),
    )
    op.create_index("ix_tokens_project_id", "tokens", ["project_id"])
    op.create_table(
        "configuration_sessions",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("environment_id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("description", sa.JSON(), nullable=False),
        *_stamps(),
        sa.ForeignKeyConstraint(["environment_id"], ["environments.id"], ondelete="CASCADE",
                                name="fk_configuration_sessions_environment_id_environments"),
        sa.PrimaryKeyConstraint("id", name="pk_configuration_sessions"),
    )
    op.create_index("ix_configuration_sessions_environment_id", "configuration_sessions",
                    ["environment_id"])
    op.create_table(
        "environment_templates",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.JSON(), nullable=False),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        *_stamps(),
        sa.PrimaryKeyConstraint("id", name="pk_environment_templates"),
        sa.UniqueConstraint("project_id", "name",
                            name="uq_environment_templates_project_id_name"),
    )
    op.create_index("ix_environment_templates_project_id", "environment_templates",
                    ["project_id"])
    op.create_table(
        "categories",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        *_stamps(),
        sa.PrimaryKeyConstraint("id", name="pk_categories"),
        sa.UniqueConstraint("name", name="uq_categories_name"),
    )
    op.create_table(
        "tasks",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("environment_id", sa.String(36), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("claimed_by", sa.String(255), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
    )
    op.create_index("ix_tasks_project_id", "tasks", ["project_id"])
    op.create_index("ix_tasks_environment_id", "tasks", ["environment_id"])
    op.create_index("ix_tasks_state", "tasks", ["state"])
    op.create_table(
        "instance_stats",
        sa.Column("environment_id", sa.String(36), nullable=False),
        sa.Column("instance_id", sa.String(255), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("instance_type", sa.Integer(), nullable=False),
        sa.Column("type_name", sa.String(512), nullable=False),
        sa.Column("type_title", sa.String(512), nullable=True),
        sa.Column("unit_count", sa.Integer(), nullable=True),
        sa.Column("created", sa.Integer(), nullable=False),
        sa.Column("destroyed", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("environment_id", "instance_id", name="pk_instance_stats"),
    )
    op.create_index("ix_instance_stats_project_id", "instance_stats", ["project_id"])


def downgrade() -> None:
    op.drop_index("ix_instance_stats_project_id", table_name="instance_stats")
    op.drop_table("instance_stats")
    for index in ("ix_tasks_state", "ix_tasks_environment_id", "ix_tasks_project_id"):
        op.drop_index(index, table_name="tasks")
    op.drop_table("tasks")
    op.drop_table("categories")
    op.drop_index("ix_environment_templates_project_id", table_name="environment_templates")
    op.drop_table("environment_templates")
    op.drop_index("ix_configuration_sessions_environment_id",
                  table_name="configuration_sessions")
    op.drop_table("configuration_sessions")
    op.drop_index("ix_tokens_project_id", table_name="tokens")
    op.drop_table("tokens")
    op.drop_table("memberships")
    op.drop_table("users")
    op.drop_table("projects")
    with op.batch_alter_table("environments") as batch:
        batch.drop_column("description")
