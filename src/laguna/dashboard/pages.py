"""The dashboard's routes, gathered from the module of each kind of page."""

from __future__ import annotations

from starlette.routing import Mount, Router
from starlette.staticfiles import StaticFiles

from laguna.dashboard import account, blueprints, catalog, environments
from laguna.dashboard.client import Asgi
from laguna.dashboard.routing import PREFIX

__all__ = ["PREFIX", "dashboard"]


def dashboard(api: Asgi) -> Router:
    """The dashboard's routes, to be mounted at :data:`PREFIX` in ``api``."""
    static = StaticFiles(packages=[("laguna.dashboard", "static")])
    return Router(routes=[
        *account.routes(api),
        *catalog.routes(api),
        *environments.routes(api),
        *blueprints.routes(api),
        Mount("/static", static, name="static"),
    ])
