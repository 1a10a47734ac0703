"""Packages, their tags and categories.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "packages",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("fully_qualified_name", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("version", sa.String(255), nullable=False),
        sa.Column("version_major", sa.Integer(), nullable=False),
        sa.Column("version_minor", sa.Integer(), nullable=False),
        sa.Column("version_patch", sa.Integer(), nullable=False),
        sa.Column("version_prerelease", sa.String(255), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("format", sa.String(32), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("author", sa.String(255), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("is_public", sa.Boolean(), nullable=False),
        sa.Column("owner_id", sa.String(64), nullable=True),
        sa.Column("archive", sa.LargeBinary(), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("logo", sa.LargeBinary(), nullable=True),
        sa.Column("ui_definition", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_packages"),
        sa.UniqueConstraint("fully_qualified_name", "version", name="uq_packages_fqn_version"),
    )
    op.create_index("ix_packages_fully_qualified_name", "packages", ["fully_qualified_name"])
    op.create_table(
        "package_tags",
        sa.Column("package_id", sa.Uuid(), nullable=False),
        sa.Column("tag", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["package_id"], ["packages.id"], ondelete="CASCADE",
                                name="fk_package_tags_package_id_packages"),
        sa.PrimaryKeyConstraint("package_id", "tag", name="pk_package_tags"),
    )
    op.create_index("ix_package_tags_tag", "package_tags", ["tag"])
    op.create_table(
        "package_categories",
        sa.Column("package_id", sa.Uuid(), nullable=False),
        sa.Column("category", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["package_id"], ["packages.id"], ondelete="CASCADE",
                                name="fk_package_categories_package_id_packages"),
        sa.PrimaryKeyConstraint("package_id", "category", name="pk_package_categories"),
    )
    op.create_index("ix_package_categories_category", "package_categories", ["category"])


def downgrade() -> None:
    op.drop_index("ix_package_categories_category", table_name="package_categories")
    op.drop_table("package_categories")
    op.drop_index("ix_package_tags_tag", table_name="package_tags")
    op.drop_table("package_tags")
    op.drop_index("ix_packages_fully_qualified_name", table_name="packages")
    op.drop_table("packages")
