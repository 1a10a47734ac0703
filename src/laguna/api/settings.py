"""What ``laguna serve`` is configured with."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path

#: how long a token of the embedded identity is valid
TOKEN_LIFETIME = datetime.timedelta(hours=24)
#: the defaults of the request limits (docs/SECURITY.md): a JSON body, a package
#: archive (the original's ``package_size_limit``, 5 MB), a JSON body's nesting
MAX_BODY_SIZE = 1024 * 1024
MAX_PACKAGE_SIZE = 5 * 1024 * 1024
MAX_JSON_DEPTH = 100
#: event streams (``GET /v1/environments/{id}/events``) open at once in one
#: process: 503 above, so that clients cannot hold every connection it can serve
MAX_EVENT_STREAMS = 100
#: seconds between two keep-alive comments of an idle event stream (proxies
#: close connections silent for longer, often 30 to 60 s)
EVENT_KEEPALIVE = 15.0


@dataclasses.dataclass(frozen=True)
class ApiSettings:
    """The service's settings; every field has a default that works on one machine."""

    #: the working directory: its store (unless ``database_url``) and its local cloud
    workdir: Path
    #: the store's URL; None: the working directory's SQLite file
    database_url: str | None = None
    #: Keystone's URL (``.../v3``) to validate tokens with; None: the embedded identity
    keystone_url: str | None = None
    #: engine workers running deployments and actions in this process
    workers: int = 2
    #: RabbitMQ's URL (``--broker``): the work goes to ``laguna worker`` processes
    #: and none runs here; None: the engine runs in this process's threads
    broker_url: str | None = None
    token_lifetime: datetime.timedelta = TOKEN_LIFETIME
    #: bytes of a request's body (every request but a package upload): 413 above
    max_body_size: int = MAX_BODY_SIZE
    #: bytes of an uploaded package archive: 413 above
    max_package_size: int = MAX_PACKAGE_SIZE
    #: levels of arrays and objects in a JSON body: 400 deeper
    max_json_depth: int = MAX_JSON_DEPTH
    #: (project, user) that requests without a token act as (``--anonymous``; the
    #: server then listens on loopback only); None: every request needs a token
    anonymous: tuple[str, str] | None = None
    #: event streams open at once: 503 above
    max_event_streams: int = MAX_EVENT_STREAMS
    #: seconds an event stream waits at most before reading the store again;
    #: None: the store's default (laguna.store.notifications: 5 s where it
    #: publishes, PostgreSQL, else 0.5 s)
    event_poll_interval: float | None = None
    #: seconds between keep-alive comments of an idle event stream
    event_keepalive: float = EVENT_KEEPALIVE
