"""The dashboard's routes, gathered from the module of each kind of page."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Mount, Router
from starlette.staticfiles import StaticFiles

from laguna.dashboard import (
    account,
    actions,
    applications,
    blueprints,
    catalog,
    deploying,
    environments,
    live,
)
from laguna.dashboard.catalog import IMPORT_PATH
from laguna.dashboard.client import Asgi
from laguna.dashboard.rendering import page
from laguna.dashboard.routing import PREFIX

__all__ = ["IMPORT_PATH", "PREFIX", "dashboard", "refused"]


def dashboard(api: Asgi, keystone_url: str | None = None) -> Router:
    """The dashboard's routes, to be mounted at :data:`PREFIX` in ``api``;
    ``keystone_url``: the server's Keystone (``--keystone-url``), which signs in
    with credentials."""
    static = StaticFiles(packages=[("laguna.dashboard", "static")])
    return Router(routes=[
        *account.routes(api, keystone_url),
        *catalog.routes(api),
        *environments.routes(api),
        *applications.routes(api),
        *deploying.routes(api),
        *live.routes(api),
        *actions.routes(api),
        *blueprints.routes(api),
        Mount("/static", static, name="static"),
    ])


def refused(status: int, message: str) -> Response:
    """The page a request of the dashboard gets when the server refuses it before
    the dashboard sees it (a body over the bounds of :mod:`laguna.api.limits`,
    such as an import larger than the package limit): the server's message on
    the dashboard's error page, not the API's JSON fault."""
    return page("error.html", status, title="Refused", message=message)
