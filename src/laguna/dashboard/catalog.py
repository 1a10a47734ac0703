"""The catalog's pages: the packages the caller may see, importing one (a
MuranoPL package's zip or a CSAR), each package's page with what its archive
says (:mod:`laguna.dashboard.contents`), its logo, and the owner's and the
admins' controls: enable or disable, make public or private, delete.

Every change is the API's request, so the API decides who may make it; the
controls are only offered to whom the API would allow (:func:`_is_admin`,
:func:`_owns`), and the API's refusal is shown when it refuses anyway.
"""

from __future__ import annotations

import re
import typing as t
import urllib.parse

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import contents, signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, signed_in
from laguna.packages.errors import VersionError
from laguna.packages.versions import Version, parse_version

#: the most packages a catalog page lists
CATALOG_PAGE = 100
#: the most versions of a package whose archives its page reads for their
#: version numbers (the API's view of a package has none); others say so
VERSIONS_READ = 10
#: the longest tag list typed on the import page (the API bounds each tag too)
MAX_TAGS_TEXT = 2048
#: where the import form is posted; laguna.api.limits bounds its body as the API's
#: own upload route's (the archive's limit plus the metadata's allowance)
IMPORT_PATH = f"{PREFIX}/catalog/import"
#: the prefix of the API's refusal of an archive; the problems follow it, "; " between
_LOAD_FAILURE = "Couldn't load package from file: "
#: where one problem of a refused archive ends and the next begins: "; " before a
#: problem's position (FILE:LINE:COL: ) or its severity
_NEXT_PROBLEM = re.compile(r"; (?=[^;\s]+:\d+:\d+: |error\[|warning\[)")


def problems_of(message: str) -> tuple[str, list[str]]:
    """The API's refusal of an upload as a headline and its problems, one each
    (``Couldn't load package from file: A; B``), else the message alone."""
    if not message.startswith(_LOAD_FAILURE):
        return message, []
    listed = message[len(_LOAD_FAILURE):]
    prefix = "CSAR refused: "
    headline = _LOAD_FAILURE.rstrip(": ")
    if listed.startswith(prefix):
        headline, listed = f"{headline}: CSAR refused", listed[len(prefix):]
    return headline + ":", _NEXT_PROBLEM.split(listed)


async def _is_admin(client: ApiClient) -> bool:
    """Whether the caller has the admin role. Murano's API says so only by what
    it allows: listing another project's environments needs the role (the
    project asked for need not exist; an admin gets an empty list)."""
    try:
        await client.get("/v1/environments", {"tenant": "laguna-dashboard-role-probe"})
    except ApiFailure as failure:
        if failure.status == 403:
            return False
        raise
    return True


async def _owns(client: ApiClient, package_id: str) -> bool:
    """Whether the caller's project owns the package (the API's ``owned`` filter)."""
    found = await client.get("/v1/catalog/packages", {
        "owned": "true", "id": package_id, "include_disabled": "true"})
    return any(p["id"] == package_id for p in found["packages"])


def routes(api: Asgi) -> list[BaseRoute]:
    async def catalog(request: Request, client: ApiClient, token: str) -> Response:
        search = request.query_params.get("search", "").strip()
        category = request.query_params.get("category", "")
        tag = request.query_params.get("tag", "").strip()
        limit = request.query_params.get("limit", "")
        size = int(limit) if limit.isdigit() and 0 < int(limit) <= CATALOG_PAGE \
            else CATALOG_PAGE
        params: dict[str, str | list[str]] = {"limit": str(size)}
        marker = request.query_params.get("marker", "")
        if marker:
            params["marker"] = marker
        if search:
            params["search"] = search
        if category:
            params["category"] = category
        if tag:
            params["tag"] = tag
        # the owner sees its disabled packages too (the API shows others' only to admins)
        params["include_disabled"] = "true"
        found = await client.get("/v1/catalog/packages", params)
        categories = await client.get("/v1/catalog/categories")
        # the API's next_marker: the page was full, there may be more after it
        following = found.get("next_marker")
        kept = {"search": search, "category": category, "tag": tag,
                "limit": str(size) if size != CATALOG_PAGE else "", "marker": following}
        next_page = f"{PREFIX}/catalog?" + urllib.parse.urlencode(
            {key: value for key, value in kept.items() if value}) if following else None
        return page("catalog.html", key=signin.form_key(token), packages=found["packages"],
                    categories=[c["name"] for c in categories.get("categories", [])],
                    search=search, category=category, tag=tag, next_page=next_page)

    async def import_form(status: int, client: ApiClient, token: str,
                          error: str | None = None, problems: list[str] | None = None
                          ) -> Response:
        categories = await client.get("/v1/catalog/categories")
        return page("import.html", status, key=signin.form_key(token),
                    categories=[c["name"] for c in categories.get("categories", [])],
                    admin=await _is_admin(client), error=error, problems=problems or [])

    async def import_page(request: Request, client: ApiClient, token: str) -> Response:
        return await import_form(200, client, token)

    async def import_package(request: Request, client: ApiClient, token: str) -> Response:
        form = await request.form()
        upload = form.get("archive")
        if not isinstance(upload, UploadFile) or not upload.filename:
            return await import_form(400, client, token, "Choose a package's zip or a CSAR.")
        tags = [tag.strip() for tag in (field(form, "tags") or "")[:MAX_TAGS_TEXT].split(",")
                if tag.strip()]
        metadata: dict[str, t.Any] = {
            "categories": [c for c in form.getlist("categories") if isinstance(c, str) and c],
            "tags": tags}
        if field(form, "is_public") == "on":
            metadata["is_public"] = True
        # the body was bounded by laguna.api.limits before this route read it; its
        # spooled file is closed now (Starlette leaves a route's form open)
        archive = await upload.read()
        await form.close()
        try:
            created = await client.upload("/v1/catalog/packages", metadata,
                                          _safe_filename(upload.filename), archive)
        except ApiFailure as failure:
            if failure.status == 401:
                raise
            headline, problems = problems_of(failure.message)
            return await import_form(failure.status, client, token, headline, problems)
        return RedirectResponse(f"{PREFIX}/catalog/{created['id']}", 303)

    async def package(request: Request, client: ApiClient, token: str) -> Response:
        package_id = request.path_params["package_id"]
        shown = await client.get(f"/v1/catalog/packages/{package_id}")
        versions = await client.get("/v1/catalog/packages", {
            "fqn": shown["fully_qualified_name"], "limit": str(CATALOG_PAGE),
            "include_disabled": "true"})
        read, unreadable = await _contents(client, shown)
        ui = await client.raw(f"/v1/catalog/packages/{package_id}/ui")
        side_by_side = []
        for number, listed in enumerate(versions["packages"]):
            if listed["id"] == package_id:
                found: str = read.version if read else "?"
            elif number < VERSIONS_READ:
                other, _ = await _contents(client, listed)
                found = other.version if other else "?"
            else:
                found = "not read"
            side_by_side.append({**listed, "version": found})
        admin = await _is_admin(client)
        return page("package.html", key=signin.form_key(token), package=shown,
                    versions=_highest_first(side_by_side), contents=read,
                    unreadable=unreadable,
                    has_ui=ui.status_code == 200 and bool(ui.content.strip()),
                    admin=admin, owner=admin or await _owns(client, package_id))

    async def change(request: Request, client: ApiClient, _token: str) -> Response:
        """Enable or disable, make public or private: one field of Murano's patch."""
        package_id = request.path_params["package_id"]
        form = await request.form()
        setting, value = field(form, "field"), field(form, "value")
        if setting not in ("enabled", "is_public") or value not in ("true", "false"):
            raise ApiFailure(400, "Give a field (enabled or is_public) and true or false.")
        await client.patch(f"/v1/catalog/packages/{package_id}",
                           [{"op": "replace", "path": f"/{setting}", "value": value == "true"}])
        return RedirectResponse(f"{PREFIX}/catalog/{package_id}", 303)

    async def delete(request: Request, client: ApiClient, _token: str) -> Response:
        await client.delete(f"/v1/catalog/packages/{request.path_params['package_id']}")
        return RedirectResponse(f"{PREFIX}/catalog", 303)

    async def logo(request: Request, client: ApiClient, _token: str) -> Response:
        answered = await client.raw(f"/v1/catalog/packages/{request.path_params['package_id']}"
                                    "/logo")
        if answered.status_code != 200 or not answered.content:
            # a package without a logo (a CSAR, a descriptor): the dashboard's own
            return RedirectResponse(f"{PREFIX}/static/package.svg", 303)
        return Response(answered.content, media_type=_image_type(answered.content))

    return [
        Route("/catalog", signed_in(api, catalog)),
        Route("/catalog/import", signed_in(api, import_page), methods=["GET"]),
        Route("/catalog/import", signed_in(api, import_package), methods=["POST"]),
        Route("/catalog/{package_id}", signed_in(api, package)),
        Route("/catalog/{package_id}/change", signed_in(api, change), methods=["POST"]),
        Route("/catalog/{package_id}/delete", signed_in(api, delete), methods=["POST"]),
        Route("/catalog/{package_id}/logo", signed_in(api, logo)),
    ]


async def _contents(client: ApiClient, package: t.Mapping[str, t.Any]
                    ) -> tuple[contents.Contents | None, str | None]:
    """What the package's archive says, else why it cannot be shown."""
    archive = await client.raw(f"/v1/catalog/packages/{package['id']}/download")
    try:
        return contents.contents(package["type"], archive.content), None
    except contents.Unreadable as error:
        return None, str(error)


def _highest_first(listed: list[dict[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Versions by their number, highest first; those that are no version after."""
    numbered: list[tuple[Version, dict[str, t.Any]]] = []
    others = []
    for entry in listed:
        try:
            numbered.append((parse_version(entry["version"]), entry))
        except VersionError:
            others.append(entry)
    return [entry for _, entry in sorted(numbered, key=lambda pair: pair[0],
                                         reverse=True)] + others


def _safe_filename(name: str) -> str:
    """The uploaded file's base name, as a multipart part may carry it (no
    path, no quotes or control characters), at most 255 characters."""
    base = re.split(r"[\\/]", name)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._+-]", "_", base)[:255]
    return cleaned or "package.zip"


def _image_type(content: bytes) -> str:
    if content.startswith(b"\x89PNG"):
        return "image/png"
    if content.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if content.startswith(b"GIF8"):
        return "image/gif"
    if content.lstrip().startswith(b"<svg") or b"<svg" in content[:256]:
        # a package's logo is untrusted: an SVG could carry script, so it is
        # only ever shown through <img>, where scripts do not run
        return "image/svg+xml"
    return "application/octet-stream"
