"""Deployments and their status reports as the original's API showed them."""

from __future__ import annotations

import typing as t

import sqlalchemy as sa
from sqlalchemy.orm import Session

from laguna.api import descriptions
from laguna.api.timestamps import timestamp
from laguna.store.models import DeploymentRecord, EnvironmentRecord, StatusReport


def _counts(session: Session, deployment_ids: t.Sequence[str]) -> dict[tuple[str, str], int]:
    """How many errors and warnings each deployment reported, in one query."""
    if not deployment_ids:
        return {}
    rows = session.execute(
        sa.select(StatusReport.deployment_id, StatusReport.level, sa.func.count())
        .where(StatusReport.deployment_id.in_(deployment_ids),
               StatusReport.level.in_(("error", "warning")))
        .group_by(StatusReport.deployment_id, StatusReport.level))
    return {(row[0], row[1]): int(row[2]) for row in rows}


def deployment_state(deployment: DeploymentRecord, errors: int, warnings: int) -> str:
    """The original's state names: running or completed, with errors or warnings,
    or success."""
    if deployment.finished is not None and deployment.state != "running":
        if errors or deployment.state == "failure":
            return "completed_w_errors"
        return "completed_w_warnings" if warnings else "success"
    if errors:
        return "running_w_errors"
    return "running_w_warnings" if warnings else "running"


def deployment_views(session: Session,
                     deployments: t.Sequence[DeploymentRecord]) -> list[dict[str, t.Any]]:
    counts = _counts(session, [d.id for d in deployments])
    views = []
    for deployment in deployments:
        errors = counts.get((deployment.id, "error"), 0)
        warnings = counts.get((deployment.id, "warning"), 0)
        description = descriptions.from_engine(deployment.description) or {}
        objects = description.get("Objects") if "Objects" in description else description
        result = deployment.result or {}
        views.append({
            "id": deployment.id, "environment_id": deployment.environment_id,
            "description": objects, "action": _action(deployment),
            "created": timestamp(deployment.started), "updated": timestamp(
                deployment.finished or deployment.started),
            "started": timestamp(deployment.started), "finished": timestamp(deployment.finished),
            "state": deployment_state(deployment, errors, warnings),
            "result": {"isException": result.get("error") is not None,
                       "result": result.get("result")} if deployment.finished else None,
        })
    return views


def _action(deployment: DeploymentRecord) -> dict[str, t.Any]:
    if deployment.operation == "action" and deployment.action:
        return {"object_id": deployment.action.get("object"),
                "method": deployment.action.get("method"),
                "args": deployment.action.get("arguments") or {}}
    return {"object_id": deployment.environment_id,
            # a watch pass (laguna's own; Murano had none) keeps its name
            "method": deployment.operation if deployment.operation in ("deploy", "watch")
            else "destroy", "args": {}}


def report_view(report: StatusReport) -> dict[str, t.Any]:
    return {"id": report.id, "task_id": report.deployment_id, "entity_id": report.entity_id,
            "entity": "unit" if report.entity_id else None, "text": report.text,
            "level": report.level, "details": report.details, "created": timestamp(report.time),
            "updated": timestamp(report.time), "timestamp": timestamp(report.time)}


def entity_ids(node: t.Any) -> set[str]:
    """The ids of every object inside an application (its own included)."""
    found: set[str] = set()
    if isinstance(node, dict):
        marker = node.get("?")
        if isinstance(marker, dict) and isinstance(marker.get("id"), str):
            found.add(marker["id"])
        for value in node.values():
            found |= entity_ids(value)
    elif isinstance(node, list):
        for value in node:
            found |= entity_ids(value)
    return found


def last_reports(session: Session, record: EnvironmentRecord,
                 services: t.Sequence[t.Any]) -> dict[str, t.Any]:
    """The newest report about each service (or anything inside it)."""
    result: dict[str, t.Any] = {}
    for service in services:
        if not isinstance(service, dict) or not isinstance(service.get("?"), dict):
            continue
        ids = entity_ids(service)
        report = session.scalars(
            sa.select(StatusReport).join(DeploymentRecord)
            .where(DeploymentRecord.environment_id == record.id,
                   StatusReport.entity_id.in_(ids))
            .order_by(StatusReport.time.desc(), StatusReport.position.desc()).limit(1)
        ).one_or_none()
        result[str(service["?"].get("id"))] = report_view(report) if report else None
    return result
