"""The FastAPI application of ``laguna serve``."""

from __future__ import annotations

import contextlib
import time
import typing as t

from fastapi import FastAPI, Request, Response

from laguna import __version__
from laguna.api import errors
from laguna.api.identity import Identity, KeystoneIdentity, StoreIdentity
from laguna.api.routes import V1, root
from laguna.api.settings import ApiSettings
from laguna.api.state import ApiState
from laguna.api.stats import RequestStats
from laguna.api.tasks import TaskQueue
from laguna.deploy.workdir import Workdir, open_store
from laguna.store.db import Database

QueueFactory = t.Callable[[ApiSettings, Database], TaskQueue]


def open_api_store(settings: ApiSettings) -> Database:
    """The store the service works on, created and migrated on first start."""
    if settings.database_url is None:
        return Workdir(settings.workdir).open_store()
    return open_store(settings.database_url)


def create_app(settings: ApiSettings, *, database: Database | None = None,
               identity: Identity | None = None,
               queue: QueueFactory | None = None) -> FastAPI:
    """The application; its engine workers run while it is served (its lifespan)."""
    database = database or open_api_store(settings)
    if identity is None:
        identity = KeystoneIdentity(settings.keystone_url) if settings.keystone_url \
            else StoreIdentity(database)
    if queue is None:
        from laguna.api.engine import engine_queue
        queue = engine_queue
    state = ApiState(settings=settings, database=database, identity=identity,
                     queue=queue(settings, database), stats=RequestStats())

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> t.AsyncIterator[None]:
        state.queue.start()
        try:
            yield
        finally:
            state.queue.stop()

    app = FastAPI(title="laguna application catalog API (Murano v1)", version=__version__,
                  lifespan=lifespan)
    app.state.laguna = state
    errors.install(app)

    @app.middleware("http")
    async def count(request: Request, call_next: t.Callable[[Request], t.Awaitable[Response]]
                    ) -> Response:
        began = time.perf_counter()
        response = await call_next(request)
        state.stats.record(getattr(request.state, "project_id", None),
                           time.perf_counter() - began, response.status_code >= 500)
        return response

    app.include_router(root.router)
    for router in V1:
        app.include_router(router, prefix="/v1")
    return app
