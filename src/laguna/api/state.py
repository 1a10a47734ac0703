"""What the routes of one service share: settings, the store, the identity,
the engine's queue and the request statistics."""

from __future__ import annotations

import dataclasses

from laguna.api.eventstream import StreamSlots
from laguna.api.identity import Identity
from laguna.api.responses import PageCache
from laguna.api.settings import ApiSettings
from laguna.api.stats import RequestStats
from laguna.engine.tasks import TaskQueue
from laguna.store.db import Database
from laguna.store.freshness import StoreFreshness


@dataclasses.dataclass
class ApiState:
    settings: ApiSettings
    database: Database
    identity: Identity
    queue: TaskQueue
    stats: RequestStats
    #: the store's generations, for the answers kept in memory (laguna.api.hotpaths)
    freshness: StoreFreshness
    #: the event streams open now (bounded by ``settings.max_event_streams``)
    streams: StreamSlots = dataclasses.field(default_factory=StreamSlots)
    #: whole answers of the hot reads, by the store's generation (laguna.api.hotpaths)
    answers: PageCache = dataclasses.field(default_factory=lambda: PageCache(size=2048))
