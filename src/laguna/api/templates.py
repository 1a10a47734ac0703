"""Environment templates as the API sees them: scoped lookups, names, views and
the applications an environment made from a template receives.

The original answered a template it could not show in two ways, depending on
the resource asked: the template itself (show, update, create-environment)
with "EnvTemplate <TempId ...> is not found" and, for another project's
private template, "User has no access to these resources."; its
applications (``/services``) with "Environment Template with id ... not
found" and "User is not authorized to access this tenant resources" for any
template of another project. Both are kept, word for word.
"""

from __future__ import annotations

import typing as t

from sqlalchemy.orm import Session

from laguna.api import descriptions
from laguna.api.timestamps import timestamp
from laguna.api.errors import bad_request, forbidden, not_found
from laguna.api.identity import RequestContext
from laguna.store import templates as store
from laguna.store.models import EnvironmentTemplateRecord

NAME_LIMIT = 255
NO_ACCESS = "User has no access to these resources."
NOT_AUTHORIZED = "User is not authorized to access this tenant resources"
NAME_MISSING = "Please, specify a name of the environment template."
NAME_TOO_LONG = "Environment template name should be 255 characters maximum"
BODY_INCORRECT = "EnvTemplate body is incorrect"
DUPLICATE = "Env Template with specified name already exists"


def existing(session: Session, template_id: str) -> EnvironmentTemplateRecord:
    record = store.get_template(session, template_id)
    if record is None:
        raise not_found(f"EnvTemplate <TempId {template_id}> is not found")
    return record


def readable(session: Session, context: RequestContext,
             template_id: str) -> EnvironmentTemplateRecord:
    """The template, if the caller may read it: its own project's, a public one,
    or any for an admin."""
    record = existing(session, template_id)
    if record.is_public or context.is_admin or record.project_id == context.project_id:
        return record
    raise forbidden(NO_ACCESS)


def writable(session: Session, context: RequestContext,
             template_id: str) -> EnvironmentTemplateRecord:
    """The template, if the caller may change or delete it: its own project's, or
    any for an admin. (The original let anyone change a public template; here a
    public template is read-only to other projects.)"""
    record = existing(session, template_id)
    if context.is_admin or record.project_id == context.project_id:
        return record
    raise forbidden(NO_ACCESS)


def owned(session: Session, context: RequestContext,
          template_id: str) -> EnvironmentTemplateRecord:
    """The template whose applications the caller asks for: its own project's only,
    as the original's application routes allowed."""
    record = store.get_template(session, template_id)
    if record is None:
        raise not_found(f"Environment Template with id {template_id} not found")
    if record.project_id != context.project_id:
        raise forbidden(NOT_AUTHORIZED)
    return record


def checked_name(body: t.Any) -> str:
    """The ``name`` of a create, clone or create-environment body; 400 as the
    original answered (with the template's wording, for environments too)."""
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise bad_request(NAME_MISSING)
    if len(name) > NAME_LIMIT:
        raise bad_request(NAME_TOO_LONG)
    return name


def checked_flag(body: t.Any, default: bool | None) -> bool | None:
    """``is_public`` of a body: a boolean, or ``default`` when absent."""
    value = body.get("is_public", default) if isinstance(body, dict) else default
    if value is not None and not isinstance(value, bool):
        raise bad_request("is_public must be true or false")
    return value


def view(record: EnvironmentTemplateRecord) -> dict[str, t.Any]:
    """The template as the original's list, create, update and clone answered it."""
    return {"id": record.id, "name": record.name, "tenant_id": record.project_id,
            "is_public": record.is_public, "version": record.version,
            "description_text": record.description_text or "", "created": timestamp(record.created),
            "updated": timestamp(record.updated)}


def with_fresh_ids(services: list[t.Any]) -> list[t.Any]:
    """A copy of a template's applications whose objects have new ids, references
    between them (a property holding another object's id) following along, so
    that environments made from one template never share an object id."""
    renamed: dict[str, str] = {}

    def collect(node: t.Any) -> None:
        if isinstance(node, dict):
            header = node.get("?")
            if isinstance(header, dict) and isinstance(header.get("id"), str):
                renamed.setdefault(header["id"], descriptions.new_object_id())
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    def rewrite(node: t.Any) -> t.Any:
        if isinstance(node, dict):
            return {key: rewrite(value) for key, value in node.items()}
        if isinstance(node, list):
            return [rewrite(item) for item in node]
        if isinstance(node, str):
            return renamed.get(node, node)
        return node

    collect(services)
    return t.cast(list[t.Any], rewrite(services))
