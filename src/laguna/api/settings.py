"""What ``laguna serve`` is configured with."""

from __future__ import annotations

import dataclasses
import datetime
from pathlib import Path

#: how long a token of the embedded identity is valid
TOKEN_LIFETIME = datetime.timedelta(hours=24)


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
    token_lifetime: datetime.timedelta = TOKEN_LIFETIME
