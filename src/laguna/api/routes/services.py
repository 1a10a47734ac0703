"""``/environments/<id>/services``: the applications of an environment, edited in a session.

Paths below ``services`` walk the description (``/services/<app id>/name``).
Reading needs no session (with one, its view); changes need
``X-Configuration-Session``.
"""

from __future__ import annotations

import copy
import typing as t

from fastapi import APIRouter, Body
from sqlalchemy.orm.attributes import flag_modified

from laguna.api import descriptions
from laguna.api.deps import Caller, ConfigurationSessionHeader, Reader, State, Store
from laguna.api.environments import check_environment, current_description, status, utcnow
from laguna.api.errors import bad_request, not_found
from laguna.api.identity import RequestContext
from laguna.api.state import ApiState
from laguna.api.sessions import check_session, editable_session, valid
from laguna.store import sessions as session_store

router = APIRouter(tags=["services"])


def _services_path(path: str) -> str:
    return "/services/" + path.strip("/") if path.strip("/") else "/services"


def _objects(description: dict[str, t.Any]) -> dict[str, t.Any]:
    objects = description.get("Objects")
    if not isinstance(objects, dict):
        raise bad_request("The environment is being deleted in this session")
    objects.setdefault("services", [])
    return objects


@router.get("/environments/{environment_id}/services", summary="List the applications")
@router.get("/environments/{environment_id}/services/{path:path}",
            summary="An application, or a part of it")
def get(environment_id: str, context: Caller, session: Reader,
        session_id: ConfigurationSessionHeader = None, path: str = "") -> t.Any:
    record = check_environment(session, context, environment_id)
    description = current_description(record)
    if session_id:
        _, configuration = check_session(session, context, environment_id, session_id)
        if valid(session, record, configuration) \
                and configuration.state != session_store.DEPLOYED:
            description = configuration.description
    objects = description.get("Objects") or {}
    if "services" not in objects:
        return []
    try:
        result = copy.deepcopy(descriptions.get(objects, _services_path(path)))
    except descriptions.PathError:
        raise not_found(f"Application not found: no {path!r} in the environment") from None
    if not path.strip("/"):
        environment_status = status(session, record)
        for service in result:
            if isinstance(service, dict) and isinstance(service.get("?"), dict):
                service["?"]["status"] = environment_status
    return result


@router.post("/environments/{environment_id}/services", summary="Add applications")
@router.post("/environments/{environment_id}/services/{path:path}",
             summary="Add to a list inside an application")
def post(environment_id: str, context: Caller, session: Store, state: State,
         session_id: ConfigurationSessionHeader = None, path: str = "",
         body: t.Annotated[t.Any, Body()] = None) -> t.Any:
    if not path.strip("/"):
        check_blueprint_inputs(state, context, body if isinstance(body, list) else [body])
    _, configuration = editable_session(session, context, environment_id, session_id)
    if body is None:
        raise bad_request("Request body is empty: please, provide the application to add")
    description = copy.deepcopy(configuration.description)
    objects = _objects(description)
    try:
        if isinstance(body, list) and not path.strip("/"):
            for item in body:
                descriptions.insert(objects, "/services", item)
        else:
            descriptions.insert(objects, _services_path(path), body)
    except descriptions.PathError:
        raise not_found(f"Application not found: no {path!r} in the environment") from None
    _save(configuration, description)
    return body


def check_blueprint_inputs(state: ApiState, context: RequestContext,
                           applications: list[t.Any]) -> None:
    """400 when an application names a CSAR or an assembly descriptor of the
    catalog (docs/API.md, "The engine") with inputs its front end refuses, each
    problem a line in the front end's words, before the session changes."""
    from laguna.deploy.workdir import Workdir
    from laguna.engine.blueprints import named, refusals
    from laguna.store.source import ProjectSource
    store = ProjectSource(state.database, context.project_id)
    for application in applications:
        if not isinstance(application, dict):
            continue
        blueprint = named(application, store)
        if blueprint is None:
            continue
        problems = refusals(Workdir(state.settings.workdir).state_dir, store, blueprint)
        if problems:
            raise bad_request(f"The inputs of {blueprint.reference} are refused:\n"
                              + "\n".join(problems))


@router.put("/environments/{environment_id}/services", summary="Replace the applications")
@router.put("/environments/{environment_id}/services/{path:path}",
            summary="Replace an application, or a part of it")
def put(environment_id: str, context: Caller, session: Store, state: State,
        session_id: ConfigurationSessionHeader = None, path: str = "",
        body: t.Annotated[t.Any, Body()] = None) -> t.Any:
    if "/" not in path.strip("/"):
        # the applications, or one whole application (a part of one is checked
        # by the deploy, as every value is)
        check_blueprint_inputs(state, context, body if isinstance(body, list) else [body])
    _, configuration = editable_session(session, context, environment_id, session_id)
    if body is None:
        raise bad_request("Request body is empty: please, provide the new value")
    description = copy.deepcopy(configuration.description)
    objects = _objects(description)
    try:
        descriptions.update(objects, _services_path(path), body)
    except descriptions.PathError:
        raise not_found(f"Application not found: no {path!r} in the environment") from None
    _save(configuration, description)
    return body


@router.delete("/environments/{environment_id}/services",
               summary="Remove every application")
@router.delete("/environments/{environment_id}/services/{path:path}",
               summary="Remove an application, or a part of it")
def delete(environment_id: str, context: Caller, session: Store,
           session_id: ConfigurationSessionHeader = None, path: str = "") -> None:
    _, configuration = editable_session(session, context, environment_id, session_id)
    description = copy.deepcopy(configuration.description)
    objects = _objects(description)
    try:
        if path.strip("/"):
            descriptions.remove(objects, _services_path(path))
        else:
            objects["services"] = []
    except descriptions.PathError:
        raise not_found(f"Application not found: no {path!r} in the environment") from None
    _save(configuration, description)
    return None


def _save(configuration: t.Any, description: dict[str, t.Any]) -> None:
    configuration.description = description
    flag_modified(configuration, "description")
    configuration.updated = utcnow()
