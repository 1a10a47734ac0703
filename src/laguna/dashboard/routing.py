"""What every page of the dashboard shares: its prefix, the sign-in guard
around each handler, and the checks of what a browser sends.

A handler is called only for a signed-in caller, with an
:class:`~laguna.dashboard.client.ApiClient` holding the caller's token; a
POST must carry the form key of that token (:mod:`laguna.dashboard.signin`).
What the API refuses is shown on an error page with the API's own message,
and a refused token sends the caller to the sign-in page.
"""

from __future__ import annotations

import typing as t
import urllib.parse

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from laguna.dashboard import signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page

PREFIX = "/dashboard"

#: a page's handler: the request, the caller's API client, the caller's token
Handler = t.Callable[[Request, ApiClient, str], t.Awaitable[Response]]
Endpoint = t.Callable[[Request], t.Awaitable[Response]]


def signed_in(api: Asgi, handler: Handler) -> Endpoint:
    """``handler`` behind the sign-in guard and the form-key check."""

    async def endpoint(request: Request) -> Response:
        token = signin.token_of(request)
        if token is None:
            return to_sign_in(request)
        if request.method == "POST":
            form = await request.form()
            if not signin.sent_by_dashboard(token, field(form, "form_key")):
                return page("error.html", 403, title="Refused", key=signin.form_key(token),
                            message="This form was not sent by a page of the dashboard.")
        async with ApiClient(api, token) as client:
            try:
                return await handler(request, client, token)
            except ApiFailure as failure:
                if failure.status == 401:
                    return to_sign_in(request)
                return page("error.html", failure.status, title="Refused by the API",
                            message=failure.message, key=signin.form_key(token))
    return endpoint


def field(form: FormData, name: str) -> str | None:
    """A text field of a submitted form (an uploaded file is not one)."""
    value = form.get(name)
    return value if isinstance(value, str) else None


def to_sign_in(request: Request) -> Response:
    target = urllib.parse.quote(request.url.path + (f"?{request.url.query}"
                                                    if request.url.query else ""))
    return RedirectResponse(f"{PREFIX}/sign-in?next={target}", 303)


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a page of the dashboard only (never
    another site: an open redirect would lend it the dashboard's name)."""
    if target and target.startswith(PREFIX + "/") and not target.startswith("//") \
            and "\\" not in target:
        return target
    return f"{PREFIX}/catalog"
