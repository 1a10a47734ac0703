"""The engine behind the API: the handlers of the task queue's kinds of work.

Filled in with deployments, actions and deletions (see docs/API.md).
"""

from __future__ import annotations

import typing as t

from laguna.api.settings import ApiSettings
from laguna.api.tasks import Handler, StoreTaskQueue, TaskQueue
from laguna.store.db import Database


def engine_handlers(settings: ApiSettings, database: Database) -> t.Mapping[str, Handler]:
    """The handler of each kind of task."""
    return {}


def engine_queue(settings: ApiSettings, database: Database) -> TaskQueue:
    return StoreTaskQueue(database, engine_handlers(settings, database),
                          workers=settings.workers)
