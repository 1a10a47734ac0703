"""Signing in and out: with a token, or with Keystone credentials when the
server validates tokens with Keystone (:mod:`laguna.dashboard.keystone`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import keystone, signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, safe_next, signed_in


def routes(api: Asgi, keystone_url: str | None = None) -> list[BaseRoute]:
    def sign_in_form(status: int, target: str, error: str | None,
                     credentials: keystone.Credentials | None = None) -> Response:
        return page("sign_in.html", status, next=target, error=error,
                    keystone=keystone_url is not None,
                    credentials=credentials or keystone.Credentials("", "", ""))

    async def home(request: Request) -> Response:
        return RedirectResponse(f"{PREFIX}/catalog", 303)

    async def sign_in_page(request: Request) -> Response:
        return sign_in_form(200, safe_next(request.query_params.get("next")), None)

    async def sign_in(request: Request) -> Response:
        form = await request.form()
        target = safe_next(field(form, "next"))
        if keystone_url is not None and field(form, "method") == "password":
            credentials = keystone.Credentials(
                (field(form, "user") or "").strip(), field(form, "password") or "",
                (field(form, "project") or "").strip(),
                (field(form, "domain") or "").strip() or "Default")
            problem = credentials.problem()
            if problem is not None:
                return sign_in_form(400, target, problem, credentials)
            try:
                token = await keystone.issue_token(keystone_url, credentials)
            except keystone.Refused as refused:
                return sign_in_form(401, target, f"Keystone refused: {refused.message}",
                                    credentials)
        else:
            token = (field(form, "token") or "").strip()
            if not token or len(token) > signin.MAX_TOKEN:
                return sign_in_form(400, target, "Give a token.")
        async with ApiClient(api, token) as client:
            try:
                await client.get("/v1/environments")
            except ApiFailure as failure:
                message = "The token was refused." if failure.status == 401 else failure.message
                return sign_in_form(401, target, message)
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
