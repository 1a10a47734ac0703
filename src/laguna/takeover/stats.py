"""Murano's statistics: instance statistics (billing data) come in; API
statistics do not (laguna's are its own servers', counted afresh)."""

from __future__ import annotations

import sqlalchemy as sa

from laguna.store.models import InstanceStatRecord
from laguna.takeover.context import Takeover


def take_instance_stats(job: Takeover, environments: set[str]) -> None:
    present = set(job.session.execute(
        sa.select(InstanceStatRecord.environment_id, InstanceStatRecord.instance_id)))
    for row in job.murano.rows("instance_stats", "environment_id", "instance_id"):
        tenant = row["tenant_id"]
        key = (row["environment_id"], row["instance_id"])
        if key in present:
            job.report.already(tenant, "instance stats")
            continue
        if row["environment_id"] not in environments:
            job.report.refuse("instance stat", row["instance_id"], tenant, row["type_name"],
                              f"its environment {row['environment_id']} is not imported")
            continue
        job.session.add(InstanceStatRecord(
            environment_id=row["environment_id"], instance_id=row["instance_id"],
            project_id=job.project(tenant), instance_type=row["instance_type"],
            type_name=row["type_name"], type_title=row["type_title"],
            unit_count=row["unit_count"], created=row["created"], destroyed=row["destroyed"]))
        job.report.add(tenant, "instance stats")
    job.session.flush()


def note_api_stats(job: Takeover) -> None:
    for row in job.murano.rows("apistats", "id"):
        job.report.refuse("api stats", str(row["id"]), "-", row["host"] or "?",
                          "laguna counts its own servers' API statistics afresh")
