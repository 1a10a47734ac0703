"""The API app of a working directory with no engine workers, and a token for it."""

from __future__ import annotations

import datetime
from pathlib import Path

from fastapi import FastAPI

from laguna.api.app import create_app
from laguna.api.settings import ApiSettings
from laguna.engine.tasks import StoreTaskQueue
from laguna.store.db import Database
from laguna.store.identity import issue_token


def idle_app(workdir: Path, project: str, user: str,
             anonymous: tuple[str, str] | None = None) -> tuple[FastAPI, str]:
    """The app serving ``workdir``'s store (nothing it queues runs) and a token of
    ``user`` in ``project``, valid for an hour."""
    def idle(_settings: ApiSettings, database: Database) -> StoreTaskQueue:
        return StoreTaskQueue(database, {}, workers=0)

    app = create_app(ApiSettings(workdir=workdir, workers=0, anonymous=anonymous), queue=idle)
    with app.state.laguna.database.session() as session:
        token = issue_token(session, project, user, False,
                            datetime.datetime.now(datetime.timezone.utc),
                            datetime.timedelta(hours=1))
    return app, token
