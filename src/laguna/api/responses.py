"""Answers of the hot routes, serialised once, by orjson.

A route returning a dict goes through FastAPI's ``jsonable_encoder``, pydantic's
validation of its return type and ``json.dumps``: about as long as the
route's own work for a page of packages. The routes the clients call most
(listing environments and packages, showing an environment) build their
JSON bytes here instead; the values are those ``json.dumps`` would write.

:class:`PageCache` keeps whole answers, each with the store's generation it
was made at (:mod:`laguna.api.hotpaths`, :mod:`laguna.store.freshness`), so
that it is right in every process of ``laguna serve --processes N`` without
telling the others.
"""

from __future__ import annotations

import threading
import typing as t

import orjson
from fastapi.responses import Response


def json_bytes(value: t.Any) -> bytes:
    """``value`` as JSON (UTF-8, compact), as FastAPI's JSONResponse writes it."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


class JsonBytes(Response):
    """An answer whose body is JSON already serialised."""

    media_type = "application/json"


def json_response(value: t.Any) -> JsonBytes:
    return JsonBytes(json_bytes(value))


Key = t.Hashable


class PageCache:
    """Serialised answers, each kept with the generation of the data it was
    made from; an answer is given only for that same generation, so a
    change anywhere (in any process) makes every older answer unused.

    Bounded: at :attr:`size` answers, or :attr:`max_bytes` of them, it
    forgets them all rather than grow (the keys are the callers' queries,
    which a client may vary at will)."""

    def __init__(self, size: int = 512, max_bytes: int = 32 * 1024 * 1024) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self._pages: dict[Key, tuple[t.Hashable, bytes]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pages)

    def get(self, key: Key, generation: t.Hashable) -> bytes | None:
        with self._lock:
            found = self._pages.get(key)
        if found is None or found[0] != generation:
            return None
        return found[1]

    def put(self, key: Key, generation: t.Hashable, body: bytes) -> None:
        with self._lock:
            replaced = self._pages.pop(key, None)
            if replaced is not None:
                self._bytes -= len(replaced[1])
            if len(self._pages) >= self.size or self._bytes + len(body) > self.max_bytes:
                self._pages.clear()
                self._bytes = 0
            if len(body) <= self.max_bytes:
                self._pages[key] = (generation, body)
                self._bytes += len(body)
