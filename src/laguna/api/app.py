"""The FastAPI application of ``laguna serve``."""

from __future__ import annotations

import contextlib
import time
import typing as t

from fastapi import FastAPI

from laguna import __version__
from laguna.api import errors
from laguna.api.hotpaths import HotReads
from laguna.api.identity import Identity, KeystoneIdentity, LocalAnonymous, StoreIdentity
from laguna.api.limits import RequestLimits
from laguna.api.routes import V1, root
from laguna.api.settings import ApiSettings
from laguna.api.state import ApiState
from laguna.api.stats import RequestStats
from laguna.dashboard.pages import PREFIX as DASHBOARD
from laguna.dashboard.pages import dashboard
from laguna.engine.tasks import TaskQueue
from laguna.deploy.workdir import Workdir, open_store
from laguna.store.db import Database
from laguna.store.freshness import StoreFreshness

#: connections the service keeps open (FastAPI runs routes on 40 threads)
POOL_SIZE = 20

QueueFactory = t.Callable[[ApiSettings, Database], TaskQueue]


def open_api_store(settings: ApiSettings) -> Database:
    """The store the service works on, created and migrated on first start."""
    # a connection for each of the server's threads, so that requests do not
    # queue for the pool before they queue for the database
    url = settings.database_url or Workdir(settings.workdir).url
    if settings.database_url is None:
        Workdir(settings.workdir).prepare_store()
    return open_store(url, pool_size=POOL_SIZE, max_overflow=POOL_SIZE)


class _CountRequests:
    """Counts every request for ``/v1/stats`` (plain ASGI: Starlette's
    BaseHTTPMiddleware costs a task and a queue per request). An event stream
    (``.../events``) is not a request answered: it lasts as long as its client
    watches, and would make the average response time meaningless."""

    def __init__(self, app: t.Any, stats: RequestStats) -> None:
        self.app = app
        self.stats = stats

    async def __call__(self, scope: t.Any, receive: t.Any, send: t.Any) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).endswith("/events"):
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = [500]

        async def sending(message: t.Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)
        try:
            await self.app(scope, receive, sending)
        finally:
            state = scope.get("state")
            project = state.get("project_id") if isinstance(state, dict) else None
            self.stats.record(project, time.perf_counter() - began, status[0] >= 500)


def default_queue(settings: ApiSettings, database: Database) -> TaskQueue:
    """RabbitMQ's workers with ``--broker``, else engine threads of this process."""
    if settings.broker_url is not None:
        from laguna.engine.broker import BrokerQueue
        return BrokerQueue(settings.broker_url)
    from laguna.engine.handlers import engine_queue
    return engine_queue(settings.workdir, settings.workers, database)


def create_app(settings: ApiSettings, *, database: Database | None = None,
               identity: Identity | None = None,
               queue: QueueFactory | None = None) -> FastAPI:
    """The application; its engine workers run while it is served (its lifespan)."""
    database = database or open_api_store(settings)
    if identity is None:
        identity = KeystoneIdentity(settings.keystone_url) if settings.keystone_url \
            else StoreIdentity(database)
    if settings.anonymous is not None:
        identity = LocalAnonymous(identity, *settings.anonymous)
    if queue is None:
        queue = default_queue
    state = ApiState(settings=settings, database=database, identity=identity,
                     queue=queue(settings, database), stats=RequestStats(),
                     freshness=StoreFreshness(database.url))

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> t.AsyncIterator[None]:
        state.queue.start()
        try:
            yield
        finally:
            state.queue.stop()
            state.freshness.close()

    # No /docs nor /redoc: FastAPI's pages load their scripts from a CDN and are
    # blank on a machine without the Internet. The document itself is served at
    # /openapi.json (and kept as docs/openapi.json) for any OpenAPI viewer.
    app = FastAPI(title="laguna application catalog API (Murano v1)", version=__version__,
                  lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.laguna = state
    errors.install(app)

    # the last added runs first: requests refused by the limits are counted too
    # innermost: after the limits authenticated the caller
    app.add_middleware(HotReads, state=state)
    app.add_middleware(RequestLimits, settings=settings, identity=identity)
    app.add_middleware(_CountRequests, stats=state.stats)
    app.include_router(root.router)
    for router in V1:
        app.include_router(router, prefix="/v1")
    # the dashboard: pages that ask this same application's API in process
    app.mount(DASHBOARD, dashboard(app, settings.keystone_url), name="dashboard")
    return app
