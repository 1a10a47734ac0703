"""Deployments of an environment (or of every environment of the project) and
their status reports."""

from __future__ import annotations

import typing as t

import sqlalchemy as sa
from fastapi import APIRouter, Query

from laguna.api.deployments import deployment_views, entity_ids, report_view
from laguna.api.deps import Caller, Reader
from laguna.api.environments import check_environment
from laguna.api.errors import bad_request, not_found
from laguna.store.models import DeploymentRecord, EnvironmentRecord, StatusReport

router = APIRouter(tags=["deployments"])


@router.get("/environments/{environment_id}/deployments",
            summary="The environment's deployments, newest first")
def list_deployments(environment_id: str, context: Caller, session: Reader) -> dict[str, t.Any]:
    record = check_environment(session, context, environment_id)
    deployments = list(session.scalars(
        sa.select(DeploymentRecord).where(DeploymentRecord.environment_id == record.id)
        .order_by(DeploymentRecord.started.desc(), DeploymentRecord.id)))
    return {"deployments": deployment_views(session, deployments)}


@router.get("/deployments", summary="Every deployment of the project's environments")
def list_all(context: Caller, session: Reader) -> dict[str, t.Any]:
    deployments = list(session.scalars(
        sa.select(DeploymentRecord).join(EnvironmentRecord)
        .where(EnvironmentRecord.project_id == context.project_id)
        .order_by(DeploymentRecord.started.desc(), DeploymentRecord.id)))
    return {"deployments": deployment_views(session, deployments)}


@router.get("/environments/{environment_id}/deployments/{deployment_id}",
            summary="A deployment's status reports")
def statuses(environment_id: str, deployment_id: str, context: Caller, session: Reader,
             service_id: t.Annotated[list[str] | None, Query()] = None) -> dict[str, t.Any]:
    check_environment(session, context, environment_id)
    deployment = session.get(DeploymentRecord, deployment_id)
    if deployment is None:
        raise not_found(f"Deployment with id {deployment_id} not found")
    if deployment.environment_id != environment_id:
        raise bad_request(f"Deployment with id {deployment_id} not found in environment "
                          f"{environment_id}")
    query = sa.select(StatusReport).where(StatusReport.deployment_id == deployment_id)
    if service_id:
        wanted = set(service_id)
        objects = (deployment.description or {}).get("Objects") or {}
        ids: set[str] = set()
        for service in objects.get("applications") or objects.get("services") or ():
            if isinstance(service, dict) and (service.get("?") or {}).get("id") in wanted:
                ids |= entity_ids(service)
        if not ids:
            return {"reports": []}
        query = query.where(StatusReport.entity_id.in_(ids))
    reports = session.scalars(query.order_by(StatusReport.position))
    return {"reports": [report_view(report) for report in reports]}
