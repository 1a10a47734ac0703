"""Who is signed in: the API token kept in a cookie, and the check that a
form was sent by a page of the dashboard.

The cookie is ``HttpOnly`` (no script reads it) and ``SameSite=Strict`` (no
other site's page sends it). Forms carry a digest of the token too
(:func:`form_key`), which a page of another origin cannot know: a POST
without it is refused even from a browser that would send the cookie.
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "laguna_dashboard_token"
#: a token is a few dozen characters; anything longer is not one
MAX_TOKEN = 4096


def token_of(request: Request) -> str | None:
    token = request.cookies.get(COOKIE)
    if not token or len(token) > MAX_TOKEN:
        return None
    return token


def remember(response: Response, token: str, secure: bool) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=secure,
                        path="/dashboard")


def forget(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/dashboard")


def form_key(token: str) -> str:
    """What a form of the dashboard carries to prove it came from one of its pages."""
    return hmac.new(token.encode(), b"laguna dashboard form", hashlib.sha256).hexdigest()


def sent_by_dashboard(token: str, key: str | None) -> bool:
    return key is not None and hmac.compare_digest(form_key(token), key)
