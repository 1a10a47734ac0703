"""``/v1/environments``: list, create, show, rename and delete environments."""

from __future__ import annotations

import typing as t

from fastapi import APIRouter, BackgroundTasks, Body, Query
from fastapi.responses import Response
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from laguna.api import descriptions
from laguna.api.deps import Caller, ConfigurationSessionHeader, Reader, State, Store
from laguna.api.environments import (
    check_environment,
    checked_description_text,
    checked_name,
    create_environment,
    current_description,
    list_views,
    refuse_taken_over,
    shown_environment,
    status,
    utcnow,
    view,
)
from laguna.api.errors import conflict, forbidden
from laguna.api.identity import RequestContext
from laguna.api.queueing import queue_deploy
from laguna.api.responses import json_response
from laguna.api.sessions import check_session, valid
from laguna.store import sessions as session_store

router = APIRouter(tags=["environments"])


def truthy(value: str | None) -> bool:
    """A query's boolean as the original read it (the client sends ``True``)."""
    return value is not None and value.lower() == "true"


@router.get("/environments", summary="List environments", response_model=dict[str, t.Any])
def list_environments(context: Caller, state: State,
                      all_tenants: t.Annotated[str | None, Query()] = None,
                      tenant: t.Annotated[str | None, Query()] = None) -> Response:
    project: str | None = context.project_id
    if truthy(all_tenants):
        if not context.is_admin:
            raise forbidden("Listing the environments of all tenants needs the admin role")
        project = None
    elif tenant:
        if tenant != context.project_id and not context.is_admin:
            raise forbidden("Listing another tenant's environments needs the admin role")
        project = tenant
    # the session in the route's own thread (not a dependency's): see laguna.api.deps
    with state.database.read_session() as session:
        return json_response({"environments": list_views(session, project)})


@router.post("/environments", summary="Create an environment")
def create(context: Caller, session: Store,
           body: t.Annotated[t.Any, Body()] = None) -> dict[str, t.Any]:
    name = checked_name(body, "Please, specify a name of the environment to create")
    extra = {key: value for key, value in body.items() if key not in ("name",)}
    record = create_environment(session, context, name, extra)
    result = view(session, record)
    del result["status"], result["networking"]
    return result


@router.get("/environments/{environment_id}", summary="Show an environment with its services",
            response_model=dict[str, t.Any])
def show(environment_id: str, context: Caller, state: State,
         session_id: ConfigurationSessionHeader = None) -> Response:
    # the session in the route's own thread (not a dependency's): see laguna.api.deps
    with state.database.read_session() as session:
        return json_response(_shown(session, context, environment_id, session_id))


def _shown(session: Session, context: RequestContext, environment_id: str,
           session_id: str | None) -> dict[str, t.Any]:
    record = shown_environment(session, context, environment_id)
    # the sessions' states only (one query of two columns), not the sessions
    result = view(session, record,
                  session_store.states_by_environment(session, [record.id])[record.id])
    result["acquired_by"] = None
    if result["status"] == session_store.DEPLOYING:
        deploying = session_store.sessions_of(session, record.id, session_store.DEPLOYING)
        result["acquired_by"] = deploying[0].id if deploying else None
    description = current_description(record)
    if session_id:
        _, configuration = check_session(session, context, environment_id, session_id)
        if valid(session, record, configuration) \
                and configuration.state != session_store.DEPLOYED:
            description = configuration.description
    objects = description.get("Objects") or {}
    services = [dict(service) for service in objects.get("services") or ()]
    for service in services:
        if isinstance(service.get("?"), dict):
            service["?"] = {**service["?"], "status": result["status"]}
    result["services"] = services
    return result


@router.put("/environments/{environment_id}",
            summary="Rename an environment (and change its description_text)")
def update(environment_id: str, context: Caller, session: Store,
           body: t.Annotated[t.Any, Body()] = None) -> dict[str, t.Any]:
    record = check_environment(session, context, environment_id)
    name = checked_name(body, "Environment name must contain at least one non-white space "
                              "symbol")
    text = checked_description_text(body)
    try:
        with session.begin_nested():
            record.name = name
            if text is not None:
                record.description_text = text
            record.updated = utcnow()
            session.flush()
    except IntegrityError:
        raise conflict("Environment with specified name already exists") from None
    result = view(session, record)
    del result["status"], result["networking"]
    return result


@router.delete("/environments/{environment_id}", summary="Delete an environment",
               description="Destroys what it deployed, then forgets it; with "
                           "`abandon=True` only forgets it.")
def delete(environment_id: str, context: Caller, session: Store, state: State,
           background: BackgroundTasks,
           abandon: t.Annotated[str | None, Query()] = None) -> None:
    record = check_environment(session, context, environment_id)
    if truthy(abandon):
        session.delete(record)
        return None
    refuse_taken_over(record)
    if status(session, record) in (session_store.DEPLOYING, session_store.DELETING):
        raise forbidden(f"Could not open session for environment <EnvId: {environment_id}>, "
                        "environment has deploying or deleting status.")
    description = dict(current_description(record))
    description["Objects"] = None
    configuration = session_store.open_session(
        session, record.id, record.version, context.user_id, description, utcnow(),
        state=session_store.DELETING)
    queue_deploy(session, state, background, context, record, configuration)
    return None


@router.get("/environments/{environment_id}/lastStatus",
            summary="The last status report of each service")
def last_status(environment_id: str, context: Caller, session: Reader,
                session_id: ConfigurationSessionHeader = None) -> dict[str, t.Any]:
    from laguna.api.deployments import last_reports
    record = check_environment(session, context, environment_id)
    description = current_description(record)
    services = (description.get("Objects") or {}).get("services") or []
    return {"lastStatuses": last_reports(session, record, services)}


@router.get("/environments/{environment_id}/model/{path:path}",
            summary="Part of the environment's object model")
def get_model(environment_id: str, path: str, context: Caller, session: Reader,
              session_id: ConfigurationSessionHeader = None) -> t.Any:
    from laguna.api.errors import not_found
    record = check_environment(session, context, environment_id)
    description = current_description(record)
    if session_id:
        _, configuration = check_session(session, context, environment_id, session_id)
        description = configuration.description
    try:
        return descriptions.get(description.get("Objects") or {}, path)
    except descriptions.PathError:
        raise not_found(f"No {path!r} in the environment's model") from None


@router.get("/environments/{environment_id}/choices",
            summary="What the environment's cloud offers its forms",
            description="laguna's own: the flavors, images, key pairs, availability "
                        "zones and networks the environment's cloud (local, containers "
                        "or ssh, as kept with the environment) offers, each list's first "
                        "entry its default; the dashboard's forms choose among them.")
def choices(environment_id: str, context: Caller, state: State) -> dict[str, list[str]]:
    from laguna.deploy.workdir import Workdir
    from laguna.errors import LagunaError
    from laguna.hosts.factory import cloud_offer

    with state.database.read_session() as session:
        record = check_environment(session, context, environment_id)
        refuse_taken_over(record)
    try:
        offer = cloud_offer(Workdir(state.settings.workdir).cloud_dir, environment_id)
    except LagunaError as error:
        # a driver that cannot open here (no inventory, a broken image map) says why
        raise conflict(str(error)) from None
    return offer.to_json()


@router.get("/environments/{environment_id}/drift",
            summary="What the deployment made on its hosts that is no longer as it was",
            description="laguna's own: asks the agent of every host of the environment "
                        "what each component's scripts left there (processes, files, "
                        "addresses) and what of it is gone, as `laguna check --json` "
                        "prints it; the next deploy repairs what is found drifted.")
def drift(environment_id: str, context: Caller, state: State) -> dict[str, t.Any]:
    from laguna.deploy.errors import DeployError
    from laguna.deploy.frontend import FrontendRegistry
    from laguna.deploy.service import Service
    from laguna.deploy.workdir import Workdir
    from laguna.hosts.factory import host_resources

    with state.database.read_session() as session:
        record = check_environment(session, context, environment_id)
        name, project = record.name, record.project_id
    # no front end is asked: the hosts answer for every blueprint language
    service = Service(Workdir(state.settings.workdir), FrontendRegistry([]),
                      resources=host_resources, project=project, database=state.database)
    try:
        return service.check(name).to_json()
    except DeployError as error:
        raise conflict(error.message) from None
