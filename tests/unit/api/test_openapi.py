"""The served OpenAPI document: kept in the repository, and fuzzed with
schemathesis (bounded) for answers of 500."""

from __future__ import annotations

import datetime
import typing as t
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from laguna.api.app import create_app
from laguna.api.openapi import text
from laguna.api.settings import ApiSettings
from laguna.api.tasks import StoreTaskQueue
from laguna.store.db import Database
from laguna.store.identity import issue_token

DOCUMENT = Path(__file__).parents[3] / "docs" / "openapi.json"


def test_the_committed_document_is_the_served_one() -> None:
    assert DOCUMENT.read_text() == text(), \
        "docs/openapi.json is stale: python -m laguna.api.openapi > docs/openapi.json"


TOKEN: dict[str, str] = {}
# a package change is a JSON patch under the original's own media type
schemathesis.serializer.alias("application/murano-packages-json-patch", "application/json")


@pytest.fixture()
def served_schema(tmp_path: Path) -> t.Any:
    def idle(_settings: ApiSettings, database: Database) -> StoreTaskQueue:
        return StoreTaskQueue(database, {}, workers=0)

    app = create_app(ApiSettings(workdir=tmp_path, workers=0), queue=idle)
    with app.state.laguna.database.session() as session:
        TOKEN["value"] = issue_token(session, "fuzz", "fuzzer", False,
                                     datetime.datetime.now(datetime.timezone.utc),
                                     datetime.timedelta(hours=1))
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("served_schema")


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_500(case: t.Any) -> None:
    response = case.call(headers={"X-Auth-Token": TOKEN["value"]})
    assert response.status_code < 500, (case.method, case.path, response.text)
