"""``/v1/catalog/categories``: the categories packages may be given.

Anyone may list and show them; only an admin may add or delete one (the
original's default policy). A category still given to a package cannot be
deleted.
"""

from __future__ import annotations

import typing as t

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response

from laguna.api.deps import Caller, Reader, Store
from laguna.api.errors import ApiError, admin_only, bad_request, conflict, forbidden, not_found
from laguna.api.routes.catalog import checked_limit
from laguna.api.timestamps import timestamp
from laguna.store import categories as repo
from laguna.store import packages as package_repo
from laguna.store.errors import CategoryInUseError, CategoryNotFoundError, DuplicateCategoryError
from laguna.store.models import CategoryRecord

router = APIRouter(tags=["categories"])

LIST_PARAMETERS = ("sort_keys", "sort_dir", "limit", "marker")
NAME_LIMIT = 80


def category_view(record: CategoryRecord, package_count: int) -> dict[str, t.Any]:
    """A category as the original answered it."""
    return {"id": record.id, "name": record.name, "created": timestamp(record.created),
            "updated": timestamp(record.updated), "package_count": package_count}


def _missing(category_id: str) -> ApiError:
    return not_found(f"Category id '{category_id}' not found")


def list_options(pairs: t.Iterable[tuple[str, str]]) -> dict[str, str]:
    """The listing's parameters; anything else answers 400, as the original did."""
    options: dict[str, str] = {}
    for key, value in pairs:
        if key not in LIST_PARAMETERS:
            raise bad_request(f"Bad value passed to filter. Got {key}, "
                              f"expected:{', '.join(LIST_PARAMETERS)}")
        if key == "sort_keys":
            for sort_key in (part.strip() for part in value.split(",")):
                if sort_key not in repo.SORT_KEYS:
                    raise bad_request(f"Invalid sort key: {sort_key}. Must be one of the "
                                      f"following: {', '.join(repo.SORT_KEYS)}")
        if key == "sort_dir" and value not in ("asc", "desc"):
            raise bad_request(f"Invalid sort direction: {value}")
        options[key] = value
    return options


@router.get("/catalog/categories", summary="List the categories, a page at a time")
def list_categories(request: Request, caller: Caller, session: Reader) -> dict[str, t.Any]:
    options = list_options(request.query_params.multi_items())
    limit = checked_limit(options.get("limit"))
    marker = options.get("marker")
    sort_keys = [part.strip() for part in options.get("sort_keys", "name").split(",")]
    try:
        found = repo.list_categories(session, sort_keys, options.get("sort_dir") == "desc",
                                     limit, marker)
    except CategoryNotFoundError:
        raise _missing(str(marker)) from None
    body: dict[str, t.Any] = {"categories": [category_view(*row) for row in found]}
    if limit is not None and len(found) == limit:
        body["next_marker"] = found[-1][0].id
    return body


@router.get("/catalog/categories/{category_id}", summary="Show a category and its packages")
def show_category(category_id: str, caller: Caller, session: Reader) -> dict[str, t.Any]:
    try:
        record = repo.get_category(session, category_id)
    except CategoryNotFoundError:
        raise _missing(category_id) from None
    body = category_view(record, repo.package_count(session, record.name))
    # only the packages the caller may see are named (the count is of all of them)
    body["packages"] = [
        {"id": package.id.hex, "name": package.name,
         "fully_qualified_name": package.fully_qualified_name}
        for package in package_repo.packages_in_category(
            session, record.name, caller.project_id, caller.is_admin)]
    return body


@router.post("/catalog/categories", summary="Add a category (admins)")
def add_category(caller: Caller, session: Store,
                 body: t.Annotated[t.Any, Body()] = None) -> dict[str, t.Any]:
    admin_only(caller.is_admin)
    name = body.get("name") if isinstance(body, dict) else None
    if not name:
        raise bad_request("Please, specify a name of the category to create")
    if not isinstance(name, str):
        raise bad_request(f"{name!r} is not of type 'string'")
    if len(name) > NAME_LIMIT:
        raise bad_request("Category name should be 80 characters maximum")
    try:
        record = repo.add_category(session, name)
    except DuplicateCategoryError:
        raise conflict("Category with specified name is already exist") from None
    return category_view(record, 0)


@router.delete("/catalog/categories/{category_id}", summary="Delete an unused category (admins)")
def delete_category(category_id: str, caller: Caller, session: Store) -> Response:
    admin_only(caller.is_admin)
    try:
        repo.delete_category(session, category_id)
    except CategoryNotFoundError:
        raise _missing(category_id) from None
    except CategoryInUseError:
        raise forbidden("It's impossible to delete categories assigned to the package, "
                        "uploaded to the catalog") from None
    # the original answered 200 with an empty body
    return Response(status_code=200, media_type="application/json")
