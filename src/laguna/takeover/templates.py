"""Murano's environment templates (table ``environment-template``), with their ids."""

from __future__ import annotations

import sqlalchemy as sa

from laguna.store.models import EnvironmentTemplateRecord
from laguna.takeover.context import Takeover
from laguna.takeover.source import BadJson, parse_json, utc


def take_templates(job: Takeover) -> None:
    present = set(job.session.scalars(sa.select(EnvironmentTemplateRecord.id)))
    public = job.murano.has_column("environment-template", "is_public")   # from head 011
    for row in job.murano.rows("environment-template", "created", "id"):
        tenant = row["tenant_id"]
        if row["id"] in present:
            job.report.already(tenant, "templates")
            continue
        try:
            description = parse_json(row["description"])
        except BadJson as error:
            job.report.refuse("template", row["id"], tenant, row["name"],
                              str(error).format(column="description"))
            continue
        project = job.project(tenant)
        clash = job.session.scalars(sa.select(EnvironmentTemplateRecord.id).where(
            EnvironmentTemplateRecord.project_id == project,
            EnvironmentTemplateRecord.name == row["name"])).first()
        if clash is not None:
            job.report.refuse("template", row["id"], tenant, row["name"],
                              f"project {project} has a template {row['name']!r} already "
                              f"({clash})")
            continue
        if not isinstance(description, dict):
            description = {}
        description.setdefault("services", [])
        job.session.add(EnvironmentTemplateRecord(
            id=row["id"], project_id=project, name=row["name"], description=description,
            is_public=bool(row["is_public"]) if public else False, version=int(row["version"]),
            created=utc(row["created"]), updated=utc(row["updated"]),
            description_text=row.get("description_text")))       # from head 015
        job.report.add(tenant, "templates")
    job.session.flush()
