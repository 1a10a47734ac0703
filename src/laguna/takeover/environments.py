"""Murano's environments, with their deployed session and their deployment
history (``task`` rows and their ``status`` reports), each with its id.

An environment Murano deployed (it has tasks) comes in ``taken over``: its
resources are on OpenStack, which laguna cannot reach; its model, history and
reports stay readable and it can be forgotten (docs/TAKEOVER.md). One never
deployed comes in ``ready``, for laguna to deploy on its own clouds; it is
refused when a class of its model is in none of the store's packages.
"""

from __future__ import annotations

import copy
import functools
import typing as t

import sqlalchemy as sa

from laguna.corelib import APPLICATIONS_PACKAGE_DIR, CORE_PACKAGE_DIR
from laguna.deploy.errors import MURANOPL_ERROR
from laguna.deploy.result import ErrorInfo
from laguna.deploy.states import DeploymentState, EnvironmentState
from laguna.packages.package import load_package
from laguna.packages.source import DirectorySource
from laguna.store import sessions as session_states
from laguna.store.models import (
    ConfigurationSession,
    DeploymentRecord,
    EnvironmentRecord,
    StatusReport,
)
from laguna.store.packages import packages_with_class
from laguna.takeover.context import Takeover
from laguna.takeover.source import BadJson, Row, parse_json, utc

MURANOPL = "muranopl"
#: what a taken-over deployment's owner columns say: no process of laguna ran it
MURANO_OWNER = "murano"


def engine_form(description: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """A description as Murano's API kept it (``services``), as laguna's engine
    keeps models (``applications``)."""
    model = copy.deepcopy(dict(description))
    objects = model.get("Objects")
    if isinstance(objects, dict):
        objects["applications"] = objects.pop("services", [])
    return model


def components(description: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """The applications of a taken-over model as ``laguna status`` lists
    components: each is ``taken over`` (its resources are Murano's, on OpenStack)."""
    objects = description.get("Objects")
    services = objects.get("services") if isinstance(objects, dict) else None
    found: dict[str, t.Any] = {}
    for service in services if isinstance(services, list) else []:
        marker = service.get("?") if isinstance(service, dict) else None
        if isinstance(marker, dict) and isinstance(marker.get("id"), str):
            found[marker["id"]] = {"type": str(marker.get("type", "")).split("/", 1)[0],
                                   "name": str(service.get("name", marker["id"])),
                                   "state": EnvironmentState.TAKEN_OVER.value}
    return found


def object_types(node: t.Any) -> set[str]:
    """The class of every object in a model (``?.type``, without Murano's
    ``/version@package`` suffix)."""
    found: set[str] = set()
    if isinstance(node, dict):
        marker = node.get("?")
        if isinstance(marker, dict) and isinstance(marker.get("type"), str):
            found.add(marker["type"].split("/", 1)[0])
        for value in node.values():
            found |= object_types(value)
    elif isinstance(node, list):
        for value in node:
            found |= object_types(value)
    return found


@functools.lru_cache(maxsize=1)
def _bundled_classes() -> frozenset[str]:
    """The classes laguna brings: the core library's and the application framework's."""
    return frozenset(load_package(CORE_PACKAGE_DIR).class_names())


def _bundled(class_name: str) -> bool:
    return (class_name in _bundled_classes() or
            bool(DirectorySource([APPLICATIONS_PACKAGE_DIR]).packages_with_class(class_name)))


def take_environments(job: Takeover) -> None:
    tasks: dict[str, list[Row]] = {}
    for task in job.murano.rows("task", "started", "id"):
        tasks.setdefault(task["environment_id"], []).append(task)
    present = set(job.session.scalars(sa.select(EnvironmentRecord.id)))
    taken: dict[str, str] = {}
    for row in job.murano.rows("environment", "created", "id"):
        if row["id"] in present:
            job.report.already(row["tenant_id"], "environments")
            taken[row["id"]] = row["tenant_id"]
            continue
        if _take(job, row, bool(tasks.get(row["id"]))):
            taken[row["id"]] = row["tenant_id"]
    _take_sessions(job, taken)
    _take_deployments(job, taken, tasks)


def _take(job: Takeover, row: Row, deployed: bool) -> bool:
    tenant = row["tenant_id"]
    what = row["name"]
    try:
        description = parse_json(row["description"])
    except BadJson as error:
        job.report.refuse("environment", row["id"], tenant, what,
                          str(error).format(column="description"))
        return False
    if not isinstance(description, dict):
        description = {}
    project = job.project(tenant)
    clash = job.session.scalars(sa.select(EnvironmentRecord.id).where(
        EnvironmentRecord.project_id == project, EnvironmentRecord.name == row["name"])).first()
    if clash is not None:
        job.report.refuse("environment", row["id"], tenant, what,
                          f"project {project} has an environment {row['name']!r} already "
                          f"({clash})")
        return False
    if not deployed:
        missing = sorted(name for name in object_types(description.get("Objects"))
                         if not packages_with_class(job.session, name)
                         and not _bundled(name))
        if missing:
            job.report.refuse("environment", row["id"], tenant, what,
                              "its model does not load with the packages present: no "
                              f"package defines {', '.join(missing)}")
            return False
    job.session.add(EnvironmentRecord(
        id=row["id"], project_id=project, name=row["name"],
        language=MURANOPL if deployed else None,
        status=(EnvironmentState.TAKEN_OVER if deployed else EnvironmentState.READY).value,
        version=int(row["version"]), model=engine_form(description) if deployed else None,
        outputs={}, components=components(description) if deployed else {},
        created=utc(row["created"]), updated=utc(row["updated"]), description=description,
        description_text=row.get("description_text")))       # from head 015
    job.session.flush()
    job.report.add(tenant, "environments")
    return True


def _take_sessions(job: Takeover, taken: dict[str, str]) -> None:
    """The deployed session of each environment (the one that matters: the API
    reads an environment's state from it); open and failed ones are left."""
    present = set(job.session.scalars(sa.select(ConfigurationSession.id)))
    for row in job.murano.rows("session", "created", "id"):
        tenant = taken.get(row["environment_id"])
        if tenant is None:
            continue
        if row["id"] in present:
            job.report.already(tenant, "sessions")
            continue
        if row["state"] != session_states.DEPLOYED:
            reason = ("open sessions are not carried over: open a new one"
                      if row["state"] == session_states.OPENED else
                      "only deployed sessions are carried over; its deployment and its "
                      "reports are")
            job.report.refuse("session", row["id"], tenant, row["state"], reason)
            continue
        try:
            description = parse_json(row["description"])
        except BadJson as error:
            job.report.refuse("session", row["id"], tenant, row["state"],
                              str(error).format(column="description"))
            continue
        job.session.add(ConfigurationSession(
            id=row["id"], environment_id=row["environment_id"], user_id=row["user_id"],
            state=row["state"], version=int(row["version"]), description=description or {},
            created=utc(row["created"]), updated=utc(row["updated"])))
        job.report.add(tenant, "sessions")
    job.session.flush()


def _operation(action: t.Any) -> tuple[str, dict[str, t.Any] | None]:
    """Murano's task ``action`` as laguna's operation and action."""
    method = action.get("method") if isinstance(action, dict) else None
    if method in (None, "deploy"):
        return "deploy", None
    if method == "destroy":
        return "undeploy", None
    return "action", {"object": action.get("object_id"), "method": method,
                      "arguments": action.get("args") or {}}


def _take_deployments(job: Takeover, taken: dict[str, str],
                      tasks: dict[str, list[Row]]) -> None:
    statuses: dict[str, list[Row]] = {}
    for status in job.murano.rows("status", "created", "id"):
        statuses.setdefault(status["task_id"], []).append(status)
    present = set(job.session.scalars(sa.select(DeploymentRecord.id)))
    for environment_id, rows in tasks.items():
        tenant = taken.get(environment_id)
        if tenant is None:
            for row in rows:
                job.report.refuse("deployment", row["id"], "?", "task",
                                  f"its environment {environment_id} is not imported")
            continue
        for row in rows:
            if row["id"] in present:
                job.report.already(tenant, "deployments")
                continue
            _take_deployment(job, tenant, row, statuses.get(row["id"], []))
    job.session.flush()


def _error(outcome: t.Any, reports: list[Row]) -> dict[str, t.Any]:
    """A failed task's error as laguna keeps errors (``ErrorInfo``'s JSON): the
    message of Murano's exception, else its last error report's text."""
    message = outcome.get("message") if isinstance(outcome, dict) else None
    if not isinstance(message, str):
        errors = [r["text"] for r in reports if r["level"] == "error"]
        message = errors[-1] if errors else "the deployment failed under Murano"
    return ErrorInfo(MURANOPL_ERROR, message).to_json()


def _take_deployment(job: Takeover, tenant: str, row: Row, reports: list[Row]) -> None:
    try:
        description = parse_json(row["description"])
        action = parse_json(row["action"])
        result = parse_json(row["result"]) or {}
    except BadJson as error:
        job.report.refuse("deployment", row["id"], tenant, "task",
                          str(error).format(column="description, action or result"))
        return
    operation, laguna_action = _operation(action)
    failed = bool(result.get("isException")) if isinstance(result, dict) else False
    failed = failed or any(r["level"] == "error" for r in reports)
    finished = utc(row["finished"])
    outcome = result.get("result") if isinstance(result, dict) else None
    record = DeploymentRecord(
        id=row["id"], environment_id=row["environment_id"], operation=operation,
        # a task Murano never finished has no engine left to finish it
        state=(DeploymentState.FAILURE if failed or finished is None
               else DeploymentState.SUCCESS).value,
        started=utc(row["started"]), finished=finished or utc(row["updated"]),
        description=engine_form(description) if isinstance(description, dict) else None,
        action=laguna_action,
        result={"outputs": {}, "error": _error(outcome, reports) if failed else None,
                # what the original's API showed as the deployment's result
                "result": outcome},
        owner_host=MURANO_OWNER, owner_pid=0, owner_started="")
    record.report_rows = [
        StatusReport(id=report["id"], position=position, level=report["level"],
                     text=report["text"], entity_id=report["entity_id"],
                     time=utc(report["created"]), details=report["details"])
        for position, report in enumerate(reports)]
    job.session.add(record)
    job.report.add(tenant, "deployments")
