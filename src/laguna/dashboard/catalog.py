"""The catalog's pages: the packages the caller may see, each package's page
and its logo."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import signin
from laguna.dashboard.client import ApiClient, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import signed_in

#: the most packages a catalog page lists
CATALOG_PAGE = 100


def routes(api: Asgi) -> list[BaseRoute]:
    async def catalog(request: Request, client: ApiClient, token: str) -> Response:
        search = request.query_params.get("search", "").strip()
        category = request.query_params.get("category", "")
        tag = request.query_params.get("tag", "").strip()
        params: dict[str, str | list[str]] = {"limit": str(CATALOG_PAGE)}
        if search:
            params["search"] = search
        if category:
            params["category"] = category
        if tag:
            params["tag"] = tag
        found = await client.get("/v1/catalog/packages", params)
        categories = await client.get("/v1/catalog/categories")
        return page("catalog.html", key=signin.form_key(token), packages=found["packages"],
                    categories=[c["name"] for c in categories.get("categories", [])],
                    search=search, category=category, tag=tag)

    async def package(request: Request, client: ApiClient, token: str) -> Response:
        package_id = request.path_params["package_id"]
        shown = await client.get(f"/v1/catalog/packages/{package_id}")
        versions = await client.get("/v1/catalog/packages", {
            "fqn": shown["fully_qualified_name"], "limit": str(CATALOG_PAGE)})
        return page("package.html", key=signin.form_key(token), package=shown,
                    versions=versions["packages"])

    async def logo(request: Request, client: ApiClient, _token: str) -> Response:
        answered = await client.raw(f"/v1/catalog/packages/{request.path_params['package_id']}"
                                    "/logo")
        if answered.status_code != 200 or not answered.content:
            return Response(status_code=404)
        return Response(answered.content, media_type=_image_type(answered.content))

    return [
        Route("/catalog", signed_in(api, catalog)),
        Route("/catalog/{package_id}", signed_in(api, package)),
        Route("/catalog/{package_id}/logo", signed_in(api, logo)),
    ]


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
