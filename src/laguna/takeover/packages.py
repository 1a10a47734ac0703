"""Murano's packages: archive, manifest data, classes, categories, tags, owner,
public and enabled flags, logo and UI, each with its id.

A package whose archive is missing or is no package cannot be imported; one
that loads but that ``laguna package check``'s rules find errors in is
imported (it was in service) and listed as one that would not load.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from laguna.errors import LagunaError
from laguna.packages.check import check_package
from laguna.packages.package import Package, load_archive
from laguna.packages.source import MemorySource
from laguna.store import packages as store
from laguna.store.models import PackageRecord, PackageTag
from laguna.takeover.context import Takeover
from laguna.takeover.source import Row, utc
from laguna.testing.packages import import_checkers


def take_packages(job: Takeover) -> None:
    tags = job.murano.names_by("package_to_tag", "tag", "tag_id")
    categories = job.murano.names_by("package_to_category", "category", "category_id")
    present = {record_id.hex for record_id in job.session.scalars(sa.select(PackageRecord.id))}
    taken: list[tuple[Row, Package]] = []
    for row in job.murano.rows("package", "created", "id"):
        tenant = row["owner_id"]
        try:
            package_id = uuid.UUID(row["id"])
        except ValueError:
            # Murano made uuid4s; laguna's package ids are UUIDs
            job.report.refuse("package", row["id"], tenant, row["fully_qualified_name"],
                              "its id is not a UUID")
            continue
        if package_id.hex in present:
            job.report.already(tenant, "packages")
            continue
        package = _take(job, row, tags.get(row["id"], []), categories.get(row["id"], []))
        if package is not None:
            taken.append((row, package))
    # checked once all are in, against every package of the store (read in this
    # transaction: a package's required ones may come with it)
    checkers = import_checkers(MemorySource(
        store.load_record(record) for record in job.session.scalars(
            sa.select(PackageRecord).where(PackageRecord.format.not_like("Descriptor%")))))
    for row, package in taken:
        errors = [d for d in check_package(package, run=checkers) if d.severity == "error"]
        if errors:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            job.report.warn("package", row["id"], row["owner_id"],
                            row["fully_qualified_name"], f"{first.code} {first.message}{more}")


def _take(job: Takeover, row: Row, tags: list[str], categories: list[str]) -> Package | None:
    tenant, fqn = row["owner_id"], row["fully_qualified_name"]

    def refuse(reason: str) -> None:
        job.report.refuse("package", row["id"], tenant, fqn, reason)

    if row["archive"] is None:
        refuse("its archive is missing")
        return None
    try:
        package = load_archive(bytes(row["archive"]), origin=f"package {row['id']}")
    except LagunaError as error:
        refuse(f"its archive is not a package: {error}")
        return None
    if package.name != fqn:
        refuse(f"its archive holds package {package.name}, not {fqn}")
        return None
    held = job.session.scalars(sa.select(PackageRecord.id).where(
        PackageRecord.fully_qualified_name == fqn,
        PackageRecord.version == str(package.version))).first()
    if held is not None:
        refuse(f"version {package.version} of {fqn} is in the store already, as package "
               f"{held.hex} (laguna keeps one package of a name and version)")
        return None
    try:
        record = store.import_package(
            job.session, package, enabled=bool(row["enabled"]),
            is_public=bool(row["is_public"]), owner_id=job.project(tenant),
            categories=categories, archive=bytes(row["archive"]),
            package_id=uuid.UUID(row["id"]))
    except LagunaError as error:
        refuse(f"its archive does not load: {error}")
        return None
    # what Murano's users edited (PATCH) wins over the manifest's
    record.name = row["name"]
    record.description = row["description"]
    record.author = row["author"]
    record.tag_rows = [PackageTag(tag=tag) for tag in sorted(set(tags))]
    if row["logo"] is not None:
        record.logo = bytes(row["logo"])
    if row["ui_definition"] is not None:
        record.ui_definition = row["ui_definition"]
    if row["supplier_logo"] is not None:
        record.supplier_logo = bytes(row["supplier_logo"])
    record.created_at = utc(row["created"]) or record.created_at
    record.updated_at = utc(row["updated"]) or record.updated_at
    job.session.flush()
    job.report.add(tenant, "packages")
    return package
