"""``POST /actions``: call a static action of a class in the catalog and answer
its result, synchronously, as the original did (its API waited on the engine
over RPC).

The catalog is the caller's view of it (public packages and the project's
own). The call runs in a worker thread of the server (this route is not a
coroutine), under the MuranoPL sandbox's limits, execution time included.
Codes as the original answered: 400 for a body without className or
methodName and for parameters a contract refuses, 404 for a class, package
or method that is not there (or not a static action), 503 when the method
raised.
"""

from __future__ import annotations

import typing as t

from fastapi import APIRouter, Body

from laguna.api.deps import Caller, State
from laguna.api.errors import ApiError, bad_request
from laguna.api.queueing import REMOTE_WAIT, run_and_wait
from laguna.api.state import ApiState
from laguna.engine.handlers import STATIC_ACTION
from laguna.frontends.muranopl.static_actions import (
    FAILED, INVALID, NOT_FOUND, StaticActionError, call_static_action,
)
from laguna.store.source import ProjectSource
from laguna.yaql.engine import DEFAULT_LIMITS

router = APIRouter(tags=["actions"])

NAMES_MISSING = "Class name and method name must be specified for static action"
_CODES = {NOT_FOUND: 404, INVALID: 400, FAILED: 503}


def _text(body: dict[str, t.Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise bad_request(f"{key} must be a string")
    return value or None


@router.post("/actions", summary="Call a static action of a class in the catalog")
def static_action(caller: Caller, state: State,
                  body: t.Annotated[t.Any, Body()] = None) -> t.Any:
    if not isinstance(body, dict):
        raise bad_request(NAMES_MISSING)
    class_name, method = _text(body, "className"), _text(body, "methodName")
    if not class_name or not method:
        raise bad_request(NAMES_MISSING)
    parameters = body.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise bad_request("parameters must be an object of the method's arguments")
    if state.queue.remote:
        return _in_worker(caller.project_id, state, body, class_name, method, parameters)
    try:
        return call_static_action(
            [ProjectSource(state.database, caller.project_id)], class_name, method,
            parameters, _text(body, "packageName"), _text(body, "classVersion"),
            DEFAULT_LIMITS)
    except StaticActionError as error:
        raise ApiError(_CODES[error.kind], error.message) from None


def _in_worker(project_id: str, state: ApiState, body: dict[str, t.Any], class_name: str,
               method: str, parameters: dict[str, t.Any] | None) -> t.Any:
    """The call made by a ``laguna worker`` (``--broker``): this route waits for it."""
    result = run_and_wait(state, STATIC_ACTION, project_id, {
        "project_id": project_id, "class_name": class_name, "method": method,
        "parameters": parameters, "package_name": _text(body, "packageName"),
        "class_version": _text(body, "classVersion")})
    if result is None:
        raise ApiError(503, f"no engine worker ran static action {class_name}.{method} "
                            f"within {REMOTE_WAIT:.0f} s")
    error = result.get("error")
    if isinstance(error, dict):
        raise ApiError(_CODES[str(error["kind"])], str(error["message"]))
    if error is not None:  # the worker's handler itself failed
        raise ApiError(503, str(error))
    return result.get("result")
