"""``/v1/catalog/packages``: the package catalog as the original served it.

Who sees what (the original's rules, its default policy): a project sees its
own packages and the public ones, an admin every package (the ``catalog``
listing keeps an admin to its own and the public ones too). Another
project's private package answers 403, naming only the id asked for; only
its owner (or an admin) may change or delete a package; only an admin may
make one public.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import typing as t
from pathlib import Path

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy.orm import Session

from laguna.api import limits, packagepatch
from laguna.api.deps import Caller, Reader, State, Store, state_of
from laguna.api.errors import ACCESS_DENIED, ApiError, bad_request, conflict, forbidden, not_found
from laguna.api.identity import RequestContext
from laguna.api.responses import JsonBytes, json_bytes
from laguna.api.state import ApiState
from laguna.api.timestamps import timestamp
from laguna.frontends.tosca.csar import CsarPackage
from laguna.packages.check import CheckResult, check_path
from laguna.packages.errors import PackageNotFoundError
from laguna.packages.package import Package
from laguna.store import packages as repo
from laguna.store.categories import require_categories
from laguna.store.errors import DuplicatePackageError, UnknownCategoryError
from laguna.store.models import PackageRecord
from laguna.store.source import StoreSource
from laguna.testing.packages import import_checkers

router = APIRouter(tags=["catalog"])

#: page size when ``limit`` is not given, and the largest page (the original's settings)
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
NAME_LIMIT = 80

#: the query parameters of a package search; others are ignored, as the original did
SEARCH_PARAMETERS = {"id", "order_by", "category", "marker", "tag", "class_name", "limit",
                     "type", "fqn", "owned", "search", "include_disabled", "sort_dir", "name"}
#: parameters that may repeat (values add up), and those taking an ``in:a,"b,c"`` list
LIST_PARAMETERS = {"id", "category", "tag", "order_by"}
IN_PARAMETERS = {"id", "category", "tag"}


def package_view(record: PackageRecord) -> dict[str, t.Any]:
    """A package as the original answered it (no archive, logo or UI)."""
    return {
        "id": record.id.hex,
        "created": timestamp(record.created_at),
        "updated": timestamp(record.updated_at),
        "fully_qualified_name": record.fully_qualified_name,
        "name": record.name,
        "type": record.type,
        "description": record.description,
        "author": record.author,
        "supplier": record.manifest.get("Supplier") or {},
        "enabled": record.enabled,
        "is_public": record.is_public,
        "owner_id": record.owner_id,
        "tags": record.tags,
        "categories": record.categories,
        "class_definitions": record.class_names,
    }


def visible_package(session: Session, caller: RequestContext, package_id: str) -> PackageRecord:
    """The package, if the caller may see it: 404 when there is none, 403 when it
    is another project's private one (admins see all), in the original's words."""
    record = repo.find_package(session, package_id)
    if record is None:
        raise not_found(f"Package id '{package_id}' not found")
    if not (caller.is_admin or record.is_public or record.owner_id == caller.project_id):
        # the trailing space is the original's
        raise forbidden(f"Package '{record.id.hex}' is not public and not owned by tenant "
                        f"'{caller.project_id}' ")
    return record


# -- listing ---------------------------------------------------------------------------


def split_in_list(text: str) -> list[str] | None:
    """The items of an ``in:`` value: comma-separated, an item may be quoted
    (``"a,b"``, ``\\"`` inside); None when the quotes do not pair up."""
    items: list[str] = []
    position = 0
    while position < len(text):
        if text[position] == '"':
            end = position + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= len(text) or text[end + 1:end + 2] not in ("", ","):
                return None
            items.append(text[position + 1:end].replace('\\"', '"'))
            position = end + 2
        else:
            end = text.find(",", position)
            end = len(text) if end < 0 else end
            item = text[position:end]
            if '"' in item.replace('\\"', ""):
                return None
            items.append(item)
            position = end + 1
    return items


def search_filters(pairs: t.Iterable[tuple[str, str]]) -> dict[str, t.Any]:
    """The search parameters of a query string, read as the original read them."""
    filters: dict[str, t.Any] = {}
    for key, value in pairs:
        if key not in SEARCH_PARAMETERS:
            continue
        if key not in LIST_PARAMETERS:
            filters[key] = value
        elif value.startswith("in:") and key in IN_PARAMETERS:
            items = split_in_list(value[len("in:"):])
            if items is not None:   # else the filter is skipped, as the original did
                filters[key] = items
        else:
            filters.setdefault(key, []).append(value)
    if "order_by" in filters:
        filters["order_by"] = [key for key in filters["order_by"] if key in repo.ORDER_KEYS]
    return filters


def checked_limit(value: str | None) -> int | None:
    """``limit`` as a positive number; 400 otherwise, as the original answered."""
    if value is None:
        return None
    try:
        limit = int(value)
    except ValueError:
        raise bad_request("Limit param must be an integer") from None
    if limit <= 0:
        raise bad_request("Limit param must be positive")
    return limit


def checked_direction(value: str | None) -> bool:
    """True for ``desc``; ``asc`` (the default) is False."""
    if value not in (None, "asc", "desc"):
        raise bad_request(f"Invalid sort direction: {value}")
    return value == "desc"


def _true(value: t.Any) -> bool:
    return isinstance(value, str) and value.lower() == "true"


def summary_view(summary: repo.PackageSummary) -> dict[str, t.Any]:
    """A listed package, as :func:`package_view` shows it."""
    return {
        "id": summary.id.hex,
        "created": timestamp(summary.created_at),
        "updated": timestamp(summary.updated_at),
        "fully_qualified_name": summary.fully_qualified_name,
        "name": summary.name,
        "type": summary.type,
        "description": summary.description,
        "author": summary.author,
        "supplier": summary.supplier or {},
        "enabled": summary.enabled,
        "is_public": summary.is_public,
        "owner_id": summary.owner_id,
        "tags": summary.tags,
        "categories": summary.categories,
        "class_definitions": summary.class_names,
    }


@router.get("/catalog/packages", summary="Search the catalog, a page at a time",
            response_model=dict[str, t.Any])
def list_packages(request: Request, caller: Caller, state: State) -> Response:
    filters = search_filters(request.query_params.multi_items())
    limit = min(MAX_LIMIT, checked_limit(filters.get("limit")) or DEFAULT_LIMIT)
    query = repo.PackageQuery(
        project_id=caller.project_id, is_admin=caller.is_admin,
        catalog=_true(request.query_params.get("catalog")),
        include_disabled=_true(filters.get("include_disabled")),
        owned=_true(filters.get("owned")),
        ids=filters.get("id"), categories=filters.get("category"), tags=filters.get("tag"),
        class_name=filters.get("class_name"), fully_qualified_name=filters.get("fqn"),
        name=filters.get("name"), type=filters.get("type"), search=filters.get("search"),
        order_by=filters.get("order_by", ["name"]),
        descending=checked_direction(filters.get("sort_dir")),
        marker=filters.get("marker"), limit=limit)
    # the session in the route's own thread (not a dependency's): see laguna.api.deps;
    # whole answers are kept by laguna.api.hotpaths, with the catalog's generation
    with state.database.read_session() as session:
        try:
            summaries = repo.search_summaries(session, query)
        except PackageNotFoundError:
            raise not_found(f"Package id '{query.marker}' not found") from None
    page: dict[str, t.Any] = {"packages": [summary_view(s) for s in summaries]}
    if len(summaries) == limit:
        page["next_marker"] = summaries[-1].id.hex
    body = json_bytes(page)
    return JsonBytes(body)


# -- upload ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Upload:
    """What a multipart upload carried: the archive and the ``__metadata__`` object."""

    archive: bytes
    metadata: dict[str, t.Any]


async def upload_body(request: Request) -> Upload:
    """The parts of an upload, checked as the original checked them (400s), and
    the archive's size (413, the limit named).

    The request is at most the archive's limit plus the metadata's allowance
    (:class:`~laguna.api.limits.RequestLimits` cut it while it arrived, so no
    more than that was spooled to disk); the archive alone is checked here."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "multipart/form-data":
        raise bad_request("Content-Type must be 'multipart/form-data'")
    settings = state_of(request).settings
    limit = settings.max_package_size
    async with request.form(max_part_size=limits.UPLOAD_ALLOWANCE) as form:
        parts = form.multi_items()
        if len(parts) > 2:
            raise bad_request("'multipart/form-data' request body should contain 1 or 2 parts: "
                              "json string and zip archive. Current body consists of "
                              f"{len(parts)} part(s)")
        archive: bytes | None = None
        metadata: dict[str, t.Any] = {}
        for _name, part in parts:
            if isinstance(part, str):
                # json.loads recurses per level: the same bound as any JSON body
                limits.check_json_depth(part.encode(), settings.max_json_depth)
                try:
                    value = json.loads(part)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    metadata = value
            else:
                archive = await part.read(limit + 1)
                if len(archive) > limit:
                    raise ApiError(413, limits.upload_too_large(limit))
    if archive is None:
        raise bad_request("There is no file package with application description")
    return Upload(archive, metadata)


#: what ``__metadata__`` may hold; ``name`` and ``description`` are the package's own
_METADATA_FIELDS = {"tags": "tags", "categories": "categories", "description": "description",
                    "name": "name", "is_public": "is_public", "enabled": "enabled"}


def metadata_problem(metadata: t.Mapping[str, t.Any]) -> str | None:
    """What the original's schema refused in ``__metadata__``; None if nothing."""
    unexpected = [key for key in metadata if key not in _METADATA_FIELDS]
    if unexpected:
        listed = ", ".join(repr(key) for key in unexpected)
        verb = "were" if len(unexpected) > 1 else "was"
        return f"Additional properties are not allowed ({listed} {verb} unexpected)"
    for key, value in metadata.items():
        problem = packagepatch.value_problem(_METADATA_FIELDS[key], value)
        if problem is not None:
            return problem
    return None


def refused(result: CheckResult) -> str | None:
    """Why the checks refuse the package (every problem they found); None if they accept it."""
    if result.failure is not None:
        return f"Couldn't load package from file: {result.failure.message}"
    if result.ok and result.package is not None:
        return None
    problems = "; ".join(str(diagnostic) for diagnostic in result.diagnostics)
    return f"Couldn't load package from file: {problems}"


def checked_package(state: ApiState, archive: bytes) -> Package:
    """The uploaded package if it passes the checks of ``laguna package import``
    (required packages from the catalog); 400 with every problem otherwise."""
    with tempfile.TemporaryDirectory(prefix="laguna-upload-") as folder:
        path = Path(folder) / "package.zip"
        path.write_bytes(archive)
        result = check_path(path, run=import_checkers(StoreSource(state.database)))
    problem = refused(result)
    if problem is not None:
        # the server's temporary folder is not the caller's business
        raise bad_request(problem.replace(repr(str(path)), "the uploaded archive")
                          .replace(str(path), "package.zip"))
    assert result.package is not None
    return result.package


def checked_csar(state: ApiState, archive: bytes) -> CsarPackage | None:
    """The uploaded CSAR (docs/TOSCA.md) if the archive is one and passes the checks
    of ``laguna package import`` (imports from the catalog); None when it is no
    CSAR (a MuranoPL package); 400 with every problem otherwise."""
    from laguna.frontends.tosca.csar import (
        CatalogCsarError, CatalogImports, check_csar, is_csar_archive, read_csar,
    )
    with tempfile.TemporaryDirectory(prefix="laguna-upload-") as folder:
        path = Path(folder) / "package.zip"
        path.write_bytes(archive)
        if not is_csar_archive(path):
            return None
        catalog = CatalogImports(StoreSource(state.database), Path(folder) / "imports")
        try:
            return read_csar(path, lambda root: check_csar(root, catalog), "package")
        except CatalogCsarError as error:
            raise bad_request(f"Couldn't load package from file: {error.message}") from None


def _store_csar(caller: RequestContext, state: ApiState, metadata: t.Mapping[str, t.Any],
                csar: CsarPackage) -> dict[str, t.Any]:
    categories = metadata.get("categories") or []
    with state.database.session() as session:
        try:
            require_categories(session, categories)
            record = repo.import_tosca_package(
                session, name=csar.name, version=csar.version,
                description=metadata.get("description") or csar.description,
                archive=csar.archive, manifest=csar.manifest,
                enabled=metadata.get("enabled", True),
                is_public=metadata.get("is_public", False), owner_id=caller.project_id,
                categories=categories)
        except UnknownCategoryError as error:
            raise bad_request(f"Category '{error.name}' doesn't exist") from None
        except DuplicatePackageError:
            raise conflict("Package with specified full name is already registered") from None
        return package_view(record)


#: the bodies FastAPI cannot see (read from the request by upload_body and
#: patch_body), described for the OpenAPI document
UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {
    "schema": {"type": "object", "required": ["__metadata__"], "properties": {
        "__metadata__": {"type": "string",
                         "description": "JSON: is_public, categories, tags, name ..."},
        "file": {"type": "string", "format": "binary",
                 "description": "the package's zip archive (any part name)"}}}}}}}
PATCH_BODY = {"requestBody": {"required": True, "content": {
    "application/murano-packages-json-patch": {"schema": {"type": "array", "items": {
        "type": "object", "required": ["op", "path"], "properties": {
            "op": {"type": "string", "enum": ["replace", "add", "remove"]},
            "path": {"type": "string", "description": "/name, /tags, /categories ..."},
            "value": {}}}}}}}}


@router.post("/catalog/packages", openapi_extra=UPLOAD_BODY,
             summary="Upload a package (multipart: __metadata__ and the zip)")
def upload_package(caller: Caller, state: State,
                   upload: t.Annotated[Upload, Depends(upload_body)]) -> dict[str, t.Any]:
    metadata = upload.metadata
    problem = metadata_problem(metadata)
    if problem is not None:
        raise bad_request(f"Package schema is not valid: {problem}")
    if metadata.get("is_public") and not caller.is_admin:
        raise forbidden(ACCESS_DENIED)
    if not upload.archive:
        raise bad_request("Uploading file can't be empty")
    csar = checked_csar(state, upload.archive)
    if csar is not None:
        return _store_csar(caller, state, metadata, csar)
    # checked before the write session: the check reads the catalog itself
    package = checked_package(state, upload.archive)
    if len(package.manifest.name) > NAME_LIMIT:
        raise bad_request("Package name should be 80 characters maximum")
    categories = metadata.get("categories") or []
    with state.database.session() as session:
        try:
            require_categories(session, categories)
            record = repo.import_package(
                session, package, enabled=metadata.get("enabled", True),
                is_public=metadata.get("is_public", False), owner_id=caller.project_id,
                categories=categories, tags=metadata.get("tags") or [],
                archive=upload.archive)
        except UnknownCategoryError as error:
            raise bad_request(f"Category '{error.name}' doesn't exist") from None
        except DuplicatePackageError:
            raise conflict("Package with specified full name is already registered") from None
        return package_view(record)


# -- one package -----------------------------------------------------------------------


@router.get("/catalog/packages/{package_id}", summary="Show a package")
def show_package(package_id: str, caller: Caller, session: Reader) -> dict[str, t.Any]:
    return package_view(visible_package(session, caller, package_id))


async def patch_body(request: Request) -> tuple[str, bytes]:
    """The request's media type and body (read before the route's session opens)."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return media_type, await request.body()


def editable(record: PackageRecord) -> dict[str, t.Any]:
    """The fields of a package a patch may change."""
    return {"name": record.name, "description": record.description,
            "enabled": record.enabled, "is_public": record.is_public,
            "tags": record.tags, "categories": record.categories}


@router.patch("/catalog/packages/{package_id}", openapi_extra=PATCH_BODY,
              summary="Change a package (application/murano-packages-json-patch)")
def update_package(package_id: str, caller: Caller, session: Store,
                   body: t.Annotated[tuple[str, bytes], Depends(patch_body)]
                   ) -> dict[str, t.Any]:
    media_type, content = body
    # the original read a patch before looking at the package; other bodies after
    changes = packagepatch.parse(content) if media_type == packagepatch.MEDIA_TYPE else None
    record = visible_package(session, caller, package_id)
    if changes is None:
        raise bad_request(f"Content-Type must be '{packagepatch.MEDIA_TYPE}'")
    for change in changes:
        if change.field == "is_public" and change.value is True and not record.is_public \
                and not caller.is_admin:
            raise forbidden(ACCESS_DENIED)
        if change.field == "name" and len(change.value) > NAME_LIMIT:
            raise bad_request("Package name should be 80 characters maximum")
    if not caller.is_admin and record.owner_id != caller.project_id:
        raise forbidden(f"Package '{record.id.hex}' is not owned by tenant "
                        f"'{caller.project_id}'")
    before = editable(record)
    after = packagepatch.apply(before, changes)
    new = {field: value for field, value in after.items() if value != before[field]}
    try:
        repo.update_package(session, record, repo.PackageChanges(**new))
    except UnknownCategoryError as error:
        raise bad_request(f"Category '{error.name}' doesn't exist") from None
    return package_view(record)


@router.delete("/catalog/packages/{package_id}", summary="Delete a package")
def delete_package(package_id: str, caller: Caller, session: Store) -> Response:
    record = visible_package(session, caller, package_id)
    if not caller.is_admin and record.owner_id != caller.project_id:
        raise forbidden(f"Package is not owned by the tenant '{caller.project_id}'")
    repo.delete_package(session, record.fully_qualified_name, record.version)
    # the original answered 200 with an empty body
    return Response(status_code=200, media_type="application/json")


def _octets(content: bytes | None) -> Response:
    # a package without that file answered 200 with an empty body
    return Response(content or b"", media_type="application/octet-stream")


@router.get("/catalog/packages/{package_id}/download", summary="The package's zip archive",
            response_class=Response)
def download_package(package_id: str, caller: Caller, session: Reader) -> Response:
    return _octets(visible_package(session, caller, package_id).archive)


@router.get("/catalog/packages/{package_id}/logo", summary="The package's logo",
            response_class=Response)
def package_logo(package_id: str, caller: Caller, session: Reader) -> Response:
    return _octets(visible_package(session, caller, package_id).logo)


@router.get("/catalog/packages/{package_id}/supplier_logo",
            summary="The logo of the package's supplier", response_class=Response)
def supplier_logo(package_id: str, caller: Caller, session: Reader) -> Response:
    record = visible_package(session, caller, package_id)
    if record.supplier_logo is not None:
        # as the original's catalog kept it (a taken-over package: docs/TAKEOVER.md)
        return _octets(record.supplier_logo)
    return _octets(repo.load_record(record).supplier_logo())


@router.get("/catalog/packages/{package_id}/inputs",
            summary="A TOSCA or assembly package's inputs, as form fields",
            description="laguna's own: a CSAR's topology inputs (type, required, default, "
                        "description, constraints, entry_schema) or an assembly "
                        "descriptor's properties a deploy may give; `type` is the "
                        "`?.type` of the application that deploys it (docs/API.md).")
def package_inputs(package_id: str, caller: Caller, state: State) -> dict[str, t.Any]:
    from laguna.deploy.workdir import Workdir
    from laguna.engine.blueprints import ASSEMBLY, TOSCA, assembly_fields, tosca_fields
    from laguna.errors import LagunaError
    from laguna.store.source import ProjectSource
    with state.database.read_session() as session:
        record = visible_package(session, caller, package_id)
        shown = (record.format, record.type, record.fully_qualified_name, record.version,
                 record.name, dict(record.manifest or {}))
    form, kind, name, version, title, manifest = shown
    store = ProjectSource(state.database, caller.project_id)
    state_dir = Workdir(state.settings.workdir).state_dir
    if form == repo.TOSCA_FORMAT:
        language, reference = TOSCA, name
    elif form == repo.DESCRIPTOR_FORMAT and kind == "Assembly":
        language, reference = ASSEMBLY, str(manifest["Descriptor"])
    else:
        raise bad_request(f"Package {name} has no inputs: a {kind} package is deployed "
                          "otherwise (a MuranoPL package's form is its UI definition, "
                          "GET .../ui; a resource descriptor is part of assemblies)")
    try:
        fields = tosca_fields(state_dir, store, f"{name}=={version}") if language == TOSCA \
            else assembly_fields(state_dir, store, reference)
    except LagunaError as error:
        raise conflict(str(error)) from None
    return {"kind": language, "type": reference, "name": title, "version": version,
            "inputs": [field.to_json() for field in fields]}


@router.get("/catalog/packages/{package_id}/ui", summary="The package's UI definition (YAML)",
            response_class=PlainTextResponse)
def package_ui(package_id: str, caller: Caller, session: Reader) -> PlainTextResponse:
    return PlainTextResponse(visible_package(session, caller, package_id).ui_definition or "")
