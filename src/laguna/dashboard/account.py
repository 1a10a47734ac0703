"""Signing in and out."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, safe_next, signed_in


def routes(api: Asgi) -> list[BaseRoute]:
    async def home(request: Request) -> Response:
        return RedirectResponse(f"{PREFIX}/catalog", 303)

    async def sign_in_page(request: Request) -> Response:
        return page("sign_in.html", next=safe_next(request.query_params.get("next")),
                    error=None)

    async def sign_in(request: Request) -> Response:
        form = await request.form()
        token = (field(form, "token") or "").strip()
        target = safe_next(field(form, "next"))
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

    return [
        Route("/", home),
        Route("/sign-in", sign_in_page, methods=["GET"]),
        Route("/sign-in", sign_in, methods=["POST"]),
        Route("/sign-out", signed_in(api, sign_out), methods=["POST"]),
    ]
