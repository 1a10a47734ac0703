"""The API's routes, one module per resource of the original's v1 API.

:data:`V1` lists the routers served under ``/v1``; a path that two routers
could both match goes to the first.
"""

from __future__ import annotations

from fastapi import APIRouter

from laguna.api.routes import (
    actions,
    catalog,
    categories,
    components,
    deployments,
    environments,
    events,
    services,
    sessions,
    static_actions,
    statistics,
    templates,
)

V1: list[APIRouter] = [
    environments.router,
    events.router,
    components.router,
    sessions.router,
    services.router,
    deployments.router,
    actions.router,
    catalog.router,
    categories.router,
    templates.router,
    statistics.router,
    static_actions.router,
]
