"""Deploying an environment from its page: the caller's open session with
changes, a redeploy of what is deployed (a session opened and deployed at
once, as murano-dashboard's redeploy did), and abandoning an environment
(removed at once, nothing undeployed)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard.client import ApiClient, Asgi
from laguna.dashboard.routing import PREFIX, field, signed_in


def routes(api: Asgi) -> list[BaseRoute]:
    async def deploy(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        form = await request.form()
        session_id = field(form, "session") or ""
        await client.post(f"/v1/environments/{environment_id}/sessions/{session_id}/deploy")
        return RedirectResponse(f"{PREFIX}/environments/{environment_id}", 303)

    async def redeploy(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        opened = await client.post(f"/v1/environments/{environment_id}/configure")
        await client.post(f"/v1/environments/{environment_id}/sessions/{opened['id']}/deploy")
        return RedirectResponse(f"{PREFIX}/environments/{environment_id}", 303)

    async def abandon(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        await client.delete(f"/v1/environments/{environment_id}", {"abandon": "true"})
        return RedirectResponse(f"{PREFIX}/environments", 303)

    base = "/environments/{environment_id}"
    return [
        Route(base + "/deploy", signed_in(api, deploy), methods=["POST"]),
        Route(base + "/redeploy", signed_in(api, redeploy), methods=["POST"]),
        Route(base + "/abandon", signed_in(api, abandon), methods=["POST"]),
    ]
