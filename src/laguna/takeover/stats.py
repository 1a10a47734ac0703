"""Murano's statistics: instance statistics (billing data), and the API
statistics of its hosts (``apistats``), kept as history with their ids
(``GET /v1/stats`` shows them to admins before laguna's own host's counts)."""

from __future__ import annotations

import sqlalchemy as sa

from laguna.store.models import ApiStatRecord, InstanceStatRecord
from laguna.takeover.context import Takeover
from laguna.takeover.report import EVERYONE
from laguna.takeover.source import utc


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


def take_api_stats(job: Takeover) -> None:
    """The original's rows, one per API host as it last refreshed them; their
    ``requests_per_tenant`` names Murano's tenants, as the original counted them."""
    present = set(job.session.scalars(sa.select(ApiStatRecord.id)))
    for row in job.murano.rows("apistats", "id"):
        if row["id"] in present:
            job.report.already(EVERYONE, "api stats")
            continue
        job.session.add(ApiStatRecord(
            id=row["id"], host=row["host"], request_count=row["request_count"],
            error_count=row["error_count"], average_response_time=row["average_response_time"],
            requests_per_tenant=row["requests_per_tenant"],
            requests_per_second=row["requests_per_second"],
            errors_per_second=row["errors_per_second"], cpu_count=row["cpu_count"],
            cpu_percent=row["cpu_percent"], created=utc(row["created"]),
            updated=utc(row["updated"])))
        job.report.add(EVERYONE, "api stats")
    job.session.flush()
