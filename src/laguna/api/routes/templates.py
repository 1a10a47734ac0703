"""``/templates``: environment templates, their applications, environments made
from them and clones, answered as the original's Templates and template
Services controllers did (see :mod:`laguna.api.templates` for who may see what).
"""

from __future__ import annotations

import copy
import typing as t

from fastapi import APIRouter, Body, Response

from laguna.api import descriptions
from laguna.api import templates as api
from laguna.api.deps import Caller, Reader, Store
from laguna.api.environments import checked_description_text, create_environment, utcnow
from laguna.api.errors import bad_request, conflict, forbidden, not_found
from laguna.store import sessions as session_store
from laguna.store import templates as store

router = APIRouter(tags=["templates"])

JsonBody = t.Annotated[t.Any, Body()]
EMPTY_BODY = "Request body is empty: please, provide application object model"


def _empty() -> Response:
    # the original answered a None result with 200 and no body
    return Response(status_code=200, media_type="application/json")


@router.get("/templates", summary="The project's templates and the public ones")
def list_templates(caller: Caller, session: Reader,
                   is_public: str | None = None) -> dict[str, t.Any]:
    # the original's filter: any non-empty value, "true" (any case) meaning True
    flag = is_public.lower() == "true" if is_public else None
    records = store.list_templates(session, caller.project_id, flag)
    return {"templates": [api.view(record) for record in records]}


@router.post("/templates", summary="Create a template, with applications or without")
def create_template(caller: Caller, session: Store,
                    body: JsonBody = None) -> dict[str, t.Any]:
    name = api.checked_name(body)
    is_public = api.checked_flag(body, False)
    services = body.get("services", [])
    if not isinstance(services, list):
        raise bad_request(api.BODY_INCORRECT)
    text = checked_description_text(body)
    record = store.create_template(session, caller.project_id, name, bool(is_public),
                                   services, utcnow(), description_text=text)
    if record is None:
        raise conflict(api.DUPLICATE)
    answer = api.view(record)
    if "services" in body:
        answer["services"] = services
    return answer


@router.get("/templates/{template_id}", summary="A template with its applications")
def show_template(template_id: str, caller: Caller, session: Reader) -> dict[str, t.Any]:
    record = api.readable(session, caller, template_id)
    return {**api.view(record), "services": store.services_of(record)}


@router.put("/templates/{template_id}", summary="Rename a template, change is_public or description_text")
def update_template(template_id: str, caller: Caller, session: Store,
                    body: JsonBody = None) -> dict[str, t.Any]:
    record = api.writable(session, caller, template_id)
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise bad_request(api.BODY_INCORRECT)
    if len(name) > api.NAME_LIMIT:
        raise bad_request(api.NAME_TOO_LONG)
    is_public = api.checked_flag(body, None)
    if not store.update_template(session, record, name=name, is_public=is_public,
                                 description_text=checked_description_text(body),
                                 now=utcnow()):
        raise conflict(api.DUPLICATE)
    return api.view(record)


@router.delete("/templates/{template_id}", summary="Delete a template")
def delete_template(template_id: str, caller: Caller, session: Store) -> Response:
    store.delete_template(session, api.writable(session, caller, template_id))
    return _empty()


@router.post("/templates/{template_id}/create-environment",
             summary="Create an environment and a session holding the template's applications")
def create_environment_from(template_id: str, caller: Caller, session: Store,
                            body: JsonBody = None) -> dict[str, str]:
    template = api.readable(session, caller, template_id)
    name = api.checked_name(body)
    objects = {key: value for key, value in body.items() if key != "name"}
    environment = create_environment(session, caller, name, objects)
    description = copy.deepcopy(environment.description or {})
    description["Objects"]["services"] = api.with_fresh_ids(store.services_of(template))
    configuration = session_store.open_session(session, environment.id, environment.version,
                                               caller.user_id, description, utcnow())
    return {"session_id": configuration.id, "environment_id": environment.id}


@router.post("/templates/{template_id}/clone",
             summary="Copy a public template into the caller's project")
def clone_template(template_id: str, caller: Caller, session: Store,
                   body: JsonBody = None) -> dict[str, t.Any]:
    source = api.existing(session, template_id)
    if not source.is_public:
        raise forbidden(api.NO_ACCESS)
    name = api.checked_name(body)
    is_public = api.checked_flag(body, False)
    services = store.services_of(source)
    record = store.create_template(session, caller.project_id, name, bool(is_public),
                                   copy.deepcopy(services), utcnow())
    if record is None:
        raise conflict("Env template with specified name already exists")
    return {**api.view(record), "services": services}


# -- the template's applications -------------------------------------------------------
def _missing(template_id: str) -> Exception:
    return not_found(f"The template does not exist {template_id}")


@router.get("/templates/{template_id}/services", summary="A template's applications")
def list_services(template_id: str, caller: Caller, session: Reader) -> list[t.Any]:
    return store.services_of(api.owned(session, caller, template_id))


@router.get("/templates/{template_id}/services/{path:path}",
            summary="An application of a template, or a value inside one")
def show_service(template_id: str, path: str, caller: Caller, session: Reader) -> t.Any:
    services = store.services_of(api.owned(session, caller, template_id))
    try:
        return descriptions.get(services, path)
    except descriptions.PathError:
        raise _missing(template_id) from None


@router.post("/templates/{template_id}/services",
             summary="Add an application (or a list of them) to a template")
def add_service(template_id: str, caller: Caller, session: Store,
                body: JsonBody = None) -> t.Any:
    record = api.owned(session, caller, template_id)
    if not isinstance(body, (dict, list)) or not body:
        raise bad_request(EMPTY_BODY)
    services = store.services_of(record)
    services.extend(body if isinstance(body, list) else [body])
    store.save_services(session, record, services, utcnow())
    return body


@router.put("/templates/{template_id}/services/{path:path}",
            summary="Replace an application of a template, or a value inside one")
def update_service(template_id: str, path: str, caller: Caller, session: Store,
                   body: JsonBody = None) -> t.Any:
    record = api.owned(session, caller, template_id)
    if body is None:
        raise bad_request(EMPTY_BODY)
    root = {"services": store.services_of(record)}
    try:
        descriptions.update(root, f"services/{path}", body)
    except descriptions.PathError:
        raise _missing(template_id) from None
    store.save_services(session, record, root["services"], utcnow())
    return body


@router.delete("/templates/{template_id}/services/{path:path}",
               summary="Remove an application of a template, or a value inside one")
def remove_service(template_id: str, path: str, caller: Caller,
                   session: Store) -> dict[str, t.Any]:
    record = api.owned(session, caller, template_id)
    root = {"services": store.services_of(record)}
    try:
        descriptions.remove(root, f"services/{path}")
    except descriptions.PathError:
        raise _missing(template_id) from None
    store.save_services(session, record, root["services"], utcnow())
    # the original answered the template's description afterwards
    return {**api.view(record), "services": root["services"]}
