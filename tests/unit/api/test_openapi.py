"""The served OpenAPI document: kept in the repository, and fuzzed with
schemathesis (bounded) for answers of 500."""

from __future__ import annotations

import typing as t
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings

from laguna.api.openapi import text
from tests.unit.api.idle import idle_app

DOCUMENT = Path(__file__).parents[3] / "docs" / "openapi.json"


def test_the_committed_document_is_the_served_one() -> None:
    assert DOCUMENT.read_text() == text(), \
        "docs/openapi.json is stale: python -m laguna.api.openapi > docs/openapi.json"


# a package change is a JSON patch under the original's own media type
schemathesis.serializer.alias("application/murano-packages-json-patch", "application/json")


def _served_schema(workdir: Path) -> tuple[t.Any, str]:
    app, token = idle_app(workdir, "fuzz", "fuzzer")
    return schemathesis.openapi.from_asgi("/openapi.json", app), token


def test_no_request_gets_a_500(tmp_path: Path) -> None:
    # Each operation's cases drawn through schemathesis' strategies and run by
    # hypothesis here, not by schemathesis' pytest plugin: the plugin reaches into
    # pytest's private attributes and broke with pytest 9.2.
    schema, token = _served_schema(tmp_path)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 40, [f"{op.method} {op.path}" for op in operations]
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def no_500(case: t.Any) -> None:
            response = case.call(headers={"X-Auth-Token": token})
            assert response.status_code < 500, (case.method, case.path, response.text)

        no_500()
