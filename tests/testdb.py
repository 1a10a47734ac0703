"""The database servers some tests need, named by environment variables that
.ci/run sets (LAGUNA_TEST_PG_URL, LAGUNA_TEST_MYSQL_URL)."""

from __future__ import annotations

import os

import pytest


def required_url(variable: str) -> str:
    """The URL in ``variable``; without it the test skips here, and fails in CI
    (``CI`` set), where those tests must run."""
    url = os.environ.get(variable)
    if not url:
        if os.environ.get("CI"):
            raise RuntimeError(f"{variable} is not set; .ci/run sets it")
        pytest.skip(f"{variable} is not set")
    return url
