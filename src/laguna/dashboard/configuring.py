"""The caller's open configuration session of an environment: where the
applications added through the dashboard wait to be deployed.

murano-dashboard kept the session it opened (``POST .../configure``) in the
user's web session and used it again while the API still called it valid;
the dashboard keeps its id in a cookie of the environment's pages
(``HttpOnly``, ``SameSite=Strict``, path ``/dashboard/environments/ID``), and
asks the API (``GET .../sessions/ID``) whether it is still the caller's and
still open before every use. A forged or stale id only makes the API refuse
it: a new session is opened then.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from laguna.dashboard.client import ApiClient, ApiFailure
from laguna.dashboard.routing import PREFIX

COOKIE_PREFIX = "laguna_session_"
#: a session's id is 32 hexadecimal digits; anything longer is not one
MAX_ID = 64


def _cookie(environment_id: str) -> str:
    return COOKIE_PREFIX + environment_id


async def current(request: Request, client: ApiClient, environment_id: str) -> str | None:
    """The open session this browser opened on ``environment_id``, when the
    API still has it open (not deployed, not outdated, the caller's)."""
    session_id = request.cookies.get(_cookie(environment_id))
    if not session_id or len(session_id) > MAX_ID or not session_id.isalnum():
        return None
    try:
        shown = await client.get(f"/v1/environments/{environment_id}/sessions/{session_id}")
    except ApiFailure as failure:
        if failure.status in (400, 401, 403, 404):
            return None
        raise
    return session_id if shown.get("state") == "opened" else None


async def opened(request: Request, client: ApiClient, environment_id: str) -> str:
    """The current session, or a new one the API opens."""
    session_id = await current(request, client, environment_id)
    if session_id is None:
        created = await client.post(f"/v1/environments/{environment_id}/configure")
        session_id = str(created["id"])
    return session_id


def remember(response: Response, request: Request, environment_id: str,
             session_id: str) -> None:
    response.set_cookie(_cookie(environment_id), session_id, httponly=True,
                        samesite="strict", secure=request.url.scheme == "https",
                        path=f"{PREFIX}/environments/{environment_id}")
