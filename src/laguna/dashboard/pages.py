"""The dashboard's routes, gathered from the module of each kind of page."""

from __future__ import annotations

from starlette.routing import Mount, Router
from starlette.staticfiles import StaticFiles

from laguna.dashboard import account, catalog, environments
from laguna.dashboard.client import Asgi
from laguna.dashboard.routing import PREFIX

__all__ = ["PREFIX", "dashboard"]


def dashboard(api: Asgi, keystone_url: str | None = None) -> Router:
    """The dashboard's routes, to be mounted at :data:`PREFIX` in ``api``;
    ``keystone_url``: the server's Keystone (``--keystone-url``), which signs in
    with credentials."""
    static = StaticFiles(packages=[("laguna.dashboard", "static")])
    return Router(routes=[
        *account.routes(api, keystone_url),
        *catalog.routes(api),
        *environments.routes(api),
        Mount("/static", static, name="static"),
    ])
