"""The dashboard's pages: sign-in, the catalog, the environments.

Each handler asks the API (:class:`~laguna.dashboard.client.ApiClient`) with
the caller's token and renders what it answered; what the API refuses is
shown on the page with the API's own message, and a refused token sends the
caller to the sign-in page.
"""

from __future__ import annotations

import typing as t
import urllib.parse

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route, Router
from starlette.staticfiles import StaticFiles

from laguna.dashboard import signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page

PREFIX = "/dashboard"
#: the most packages a catalog page lists
CATALOG_PAGE = 100

Handler = t.Callable[[Request, ApiClient, str], t.Awaitable[Response]]


def dashboard(api: Asgi) -> Router:
    """The dashboard's routes, to be mounted at :data:`PREFIX` in ``api``."""

    def signed_in(handler: Handler) -> t.Callable[[Request], t.Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            token = signin.token_of(request)
            if token is None:
                return _to_sign_in(request)
            if request.method == "POST":
                form = await request.form()
                if not signin.sent_by_dashboard(token, _field(form, "form_key")):
                    return page("error.html", 403, title="Refused", key=signin.form_key(token),
                                message="This form was not sent by a page of the dashboard.")
            async with ApiClient(api, token) as client:
                try:
                    return await handler(request, client, token)
                except ApiFailure as failure:
                    if failure.status == 401:
                        return _to_sign_in(request)
                    return page("error.html", failure.status, title="Refused by the API",
                                message=failure.message, key=signin.form_key(token))
        return endpoint

    async def home(request: Request) -> Response:
        return RedirectResponse(f"{PREFIX}/catalog", 303)

    async def sign_in_page(request: Request) -> Response:
        return page("sign_in.html", next=_safe_next(request.query_params.get("next")),
                    error=None)

    async def sign_in(request: Request) -> Response:
        form = await request.form()
        token = (_field(form, "token") or "").strip()
        target = _safe_next(_field(form, "next"))
        if not token or len(token) > signin.MAX_TOKEN:
            return page("sign_in.html", 400, next=target, error="Give a token.")
        async with ApiClient(api, token) as client:
            try:
                await client.get("/v1/environments")
            except ApiFailure as failure:
                message = "The token was refused." if failure.status == 401 else failure.message
                return page("sign_in.html", 401, next=target, error=message)
        response = RedirectResponse(target, 303)
        signin.remember(response, token, secure=request.url.scheme == "https")
        return response

    async def sign_out(request: Request, _client: ApiClient, _token: str) -> Response:
        response = RedirectResponse(f"{PREFIX}/sign-in", 303)
        signin.forget(response)
        return response

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

    async def environments(request: Request, client: ApiClient, token: str) -> Response:
        listed = await client.get("/v1/environments")
        return page("environments.html", key=signin.form_key(token),
                    environments=listed["environments"], error=None)

    async def create_environment(request: Request, client: ApiClient, token: str) -> Response:
        form = await request.form()
        name = (_field(form, "name") or "").strip()
        try:
            created = await client.post("/v1/environments", {"name": name})
        except ApiFailure as failure:
            if failure.status == 401:
                raise
            listed = await client.get("/v1/environments")
            return page("environments.html", failure.status, key=signin.form_key(token),
                        environments=listed["environments"], error=failure.message)
        return RedirectResponse(f"{PREFIX}/environments/{created['id']}", 303)

    async def environment(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        shown = await client.get(f"/v1/environments/{environment_id}")
        history = await client.get(f"/v1/environments/{environment_id}/deployments")
        deployments = []
        for deployment in history.get("deployments", []):
            reports = await client.get(
                f"/v1/environments/{environment_id}/deployments/{deployment['id']}")
            deployments.append({**deployment, "reports": reports.get("reports", [])})
        return page("environment.html", key=signin.form_key(token), environment=shown,
                    deployments=deployments)

    async def delete_environment(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        await client.delete(f"/v1/environments/{environment_id}")
        return RedirectResponse(f"{PREFIX}/environments", 303)

    static = StaticFiles(packages=[("laguna.dashboard", "static")])
    return Router(routes=[
        Route("/", home),
        Route("/sign-in", sign_in_page, methods=["GET"]),
        Route("/sign-in", sign_in, methods=["POST"]),
        Route("/sign-out", signed_in(sign_out), methods=["POST"]),
        Route("/catalog", signed_in(catalog)),
        Route("/catalog/{package_id}", signed_in(package)),
        Route("/catalog/{package_id}/logo", signed_in(logo)),
        Route("/environments", signed_in(environments), methods=["GET"]),
        Route("/environments", signed_in(create_environment), methods=["POST"]),
        Route("/environments/{environment_id}", signed_in(environment)),
        Route("/environments/{environment_id}/delete", signed_in(delete_environment),
              methods=["POST"]),
        Mount("/static", static, name="static"),
    ])


def _field(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def _to_sign_in(request: Request) -> Response:
    target = urllib.parse.quote(request.url.path + (f"?{request.url.query}"
                                                    if request.url.query else ""))
    return RedirectResponse(f"{PREFIX}/sign-in?next={target}", 303)


def _safe_next(target: str | None) -> str:
    """Where to go after signing in: a page of the dashboard only (never
    another site: an open redirect would lend it the dashboard's name)."""
    if target and target.startswith(PREFIX + "/") and not target.startswith("//") \
            and "\\" not in target:
        return target
    return f"{PREFIX}/catalog"


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
