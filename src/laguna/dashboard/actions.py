"""Running an action of a deployed environment: its argument form (from
the argument contracts the API lists), the run, and its result."""

from __future__ import annotations

import json
import typing as t

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from laguna.dashboard import signin
from laguna.dashboard.arguments import ArgumentError, values_of
from laguna.dashboard.client import ApiClient, ApiFailure, Asgi
from laguna.dashboard.deployed import ActionView, action_views
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX, field, signed_in


async def _action(client: ApiClient, environment_id: str,
                  action_id: str) -> tuple[t.Mapping[str, t.Any], ActionView]:
    environment = await client.get(f"/v1/environments/{environment_id}")
    shown = await client.get(f"/v1/environments/{environment_id}/components")
    for action in action_views(shown.get("actions")) or ():
        if action.id == action_id:
            return environment, action
    raise ApiFailure(404, f"Action {action_id} is not found")


def routes(api: Asgi) -> list[BaseRoute]:
    async def action_form(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        environment, action = await _action(client, environment_id,
                                            request.path_params["action_id"])
        return page("action.html", key=signin.form_key(token), environment=environment,
                    action=action, error=None)

    async def run_action(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        environment, action = await _action(client, environment_id,
                                            request.path_params["action_id"])
        form = await request.form()
        try:
            arguments = values_of(action.fields, lambda name: field(form, name))
            started = await client.post(
                f"/v1/environments/{environment_id}/actions/{action.id}", arguments)
        except (ArgumentError, ApiFailure) as refused:
            if isinstance(refused, ApiFailure) and refused.status == 401:
                raise
            return page("action.html", 400 if isinstance(refused, ArgumentError)
                        else refused.status, key=signin.form_key(token),
                        environment=environment, action=action, error=str(refused))
        return RedirectResponse(
            f"{PREFIX}/environments/{environment_id}/tasks/{started['task_id']}", 303)

    async def task(request: Request, client: ApiClient, token: str) -> Response:
        environment_id = request.path_params["environment_id"]
        environment = await client.get(f"/v1/environments/{environment_id}")
        answer = await client.get(
            f"/v1/environments/{environment_id}/actions/{request.path_params['task_id']}")
        done = bool(answer)
        failed = done and bool(answer.get("isException"))
        result = answer.get("result") if done else None
        if failed and isinstance(result, dict):
            shown = str(result.get("message") or "")
        else:
            shown = json.dumps(result, indent=2, sort_keys=True)
        return page("task.html", key=signin.form_key(token), environment=environment,
                    done=done, failed=failed, result=shown)

    base = "/environments/{environment_id}"
    return [
        Route(base + "/actions/{action_id}", signed_in(api, action_form), methods=["GET"]),
        Route(base + "/actions/{action_id}", signed_in(api, run_action), methods=["POST"]),
        Route(base + "/tasks/{task_id}", signed_in(api, task), methods=["GET"]),
    ]
