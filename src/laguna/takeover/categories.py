"""Murano's categories: by name (laguna's are unique by name), with their ids."""

from __future__ import annotations

import sqlalchemy as sa

from laguna.store.models import CategoryRecord
from laguna.takeover.context import Takeover
from laguna.takeover.report import EVERYONE
from laguna.takeover.source import utc


def take_categories(job: Takeover) -> None:
    known = set(job.session.scalars(sa.select(CategoryRecord.name)))
    for row in job.murano.rows("category", "name"):
        if row["name"] in known:
            job.report.already(EVERYONE, "categories")
            continue
        job.session.add(CategoryRecord(id=row["id"], name=row["name"],
                                       created=utc(row["created"]), updated=utc(row["updated"])))
        known.add(row["name"])
        job.report.add(EVERYONE, "categories")
    job.session.flush()
