"""The environments' pages: the list, creating one, each environment's page
(its applications and deployment history with reports), deleting one."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import configuring, signin
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, signed_in


def routes(api: Asgi) -> list[BaseRoute]:
    async def environments(request: Request, client: ApiClient, token: str) -> Response:
        listed = await client.get("/v1/environments")
        return page("environments.html", key=signin.form_key(token),
                    environments=listed["environments"], error=None)

    async def create_environment(request: Request, client: ApiClient, token: str) -> Response:
        form = await request.form()
        name = (field(form, "name") or "").strip()
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
        # the applications added but not deployed yet are in the caller's open session
        session_id = await configuring.current(request, client, environment_id)
        shown = await client.get(f"/v1/environments/{environment_id}", session=session_id)
        history = await client.get(f"/v1/environments/{environment_id}/deployments")
        deployments = []
        for deployment in history.get("deployments", []):
            reports = await client.get(
                f"/v1/environments/{environment_id}/deployments/{deployment['id']}")
            deployments.append({**deployment, "reports": reports.get("reports", [])})
        return page("environment.html", key=signin.form_key(token), environment=shown,
                    deployments=deployments, session_id=session_id)

    async def delete_environment(request: Request, client: ApiClient, _token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        await client.delete(f"/v1/environments/{environment_id}")
        return RedirectResponse(f"{PREFIX}/environments", 303)

    return [
        Route("/environments", signed_in(api, environments), methods=["GET"]),
        Route("/environments", signed_in(api, create_environment), methods=["POST"]),
        Route("/environments/{environment_id}", signed_in(api, environment)),
        Route("/environments/{environment_id}/delete", signed_in(api, delete_environment),
              methods=["POST"]),
    ]
