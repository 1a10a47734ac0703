"""The classes each package defines, to find packages by class name.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from laguna.errors import LagunaError
from laguna.packages.package import load_archive

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "package_classes",
        sa.Column("package_id", sa.Uuid(), nullable=False),
        sa.Column("class_name", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["package_id"], ["packages.id"], ondelete="CASCADE",
                                name="fk_package_classes_package_id_packages"),
        sa.PrimaryKeyConstraint("package_id", "class_name", name="pk_package_classes"),
    )
    op.create_index("ix_package_classes_class_name", "package_classes", ["class_name"])
    # Index the packages imported before this table existed, from their archives.
    packages = sa.table("packages", sa.column("id", sa.Uuid()),
                        sa.column("archive", sa.LargeBinary()))
    connection = op.get_bind()
    rows = []
    for package_id, archive in connection.execute(sa.select(packages.c.id, packages.c.archive)):
        try:
            names = load_archive(archive).class_names()
        except LagunaError:
            continue  # an archive that no longer reads defines no class usable anyway
        rows += [{"package_id": package_id, "class_name": name} for name in names]
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_index("ix_package_classes_class_name", table_name="package_classes")
    op.drop_table("package_classes")
