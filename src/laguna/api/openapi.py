"""The API's OpenAPI document, kept in the repository as docs/openapi.json.

``python -m laguna.api.openapi > docs/openapi.json`` writes it anew; a test
fails when the committed document differs from what the code serves.
"""

from __future__ import annotations

import json
import tempfile
import typing as t
from pathlib import Path


def document() -> dict[str, t.Any]:
    from laguna.api.app import create_app
    from laguna.api.settings import ApiSettings
    from laguna.engine.tasks import StoreTaskQueue
    from laguna.store.db import Database

    def idle(_settings: ApiSettings, database: Database) -> StoreTaskQueue:
        return StoreTaskQueue(database, {}, workers=0)

    with tempfile.TemporaryDirectory(prefix="laguna-openapi-") as scratch:
        app = create_app(ApiSettings(workdir=Path(scratch), workers=0), queue=idle)
        try:
            return app.openapi()
        finally:
            app.state.laguna.database.dispose()


def text() -> str:
    return json.dumps(document(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    print(text(), end="")
