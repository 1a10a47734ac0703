"""Actions of a deployed environment's objects: run one (a task), poll its result."""

from __future__ import annotations

import copy
import typing as t

from fastapi import APIRouter, BackgroundTasks, Body

from laguna.api.deps import Caller, Reader, State, Store
from laguna.api.environments import (
    check_environment,
    current_description,
    refuse_taken_over,
    status,
    utcnow,
)
from laguna.api.errors import bad_request, forbidden, not_found
from laguna.api.queueing import queue_action
from laguna.store import sessions as session_store
from laguna.store.models import TaskRecord

router = APIRouter(tags=["actions"])


def find_action(node: t.Any, action_id: str) -> tuple[str, dict[str, t.Any]] | None:
    """The object id and the entry of ``action_id`` in some object's ``?/_actions``."""
    if isinstance(node, list):
        for item in node:
            found = find_action(item, action_id)
            if found is not None:
                return found
    elif isinstance(node, dict):
        marker = node.get("?")
        if isinstance(marker, dict) and "id" in marker:
            entry = (marker.get("_actions") or {}).get(action_id)
            if isinstance(entry, dict):
                return str(marker["id"]), entry
        for value in node.values():
            found = find_action(value, action_id)
            if found is not None:
                return found
    return None


@router.post("/environments/{environment_id}/actions/{action_id}", summary="Run an action")
def execute(environment_id: str, action_id: str, context: Caller, session: Store, state: State,
            background: BackgroundTasks,
            body: t.Annotated[t.Any, Body()] = None) -> dict[str, str]:
    record = check_environment(session, context, environment_id)
    refuse_taken_over(record)
    if body is not None and not isinstance(body, dict):
        raise bad_request("The action's parameters must be a JSON object")
    if status(session, record) in (session_store.DEPLOYING, session_store.DELETING):
        raise forbidden(f"Could not open session for environment <EnvId: {environment_id}>, "
                        "environment has deploying or deleting status.")
    description = current_description(record)
    found = find_action(description.get("Objects"), action_id)
    if found is None:
        raise not_found(f"Action {action_id} is not found")
    object_id, entry = found
    if not entry.get("enabled", True):
        raise bad_request("Cannot execute disabled action")
    configuration = session_store.open_session(
        session, record.id, record.version, context.user_id, copy.deepcopy(description),
        utcnow(), state=session_store.DEPLOYING)
    task = queue_action(session, state, background, context, record, configuration,
                        object_id, str(entry.get("name") or action_id), body or {})
    return {"task_id": task.id}


@router.get("/environments/{environment_id}/actions/{task_id}",
            summary="An action's result, once it finished")
def get_result(environment_id: str, task_id: str, context: Caller, session: Reader) -> t.Any:
    check_environment(session, context, environment_id)
    task = session.get(TaskRecord, task_id)
    if task is None or task.environment_id != environment_id or task.kind != "action":
        raise not_found(f"Result for task with environment_id: {environment_id} and task_id: "
                        f"{task_id} was not found.")
    return task.result if task.result is not None else {}
