"""Debian's Chromium driven by Playwright against a real ``laguna serve``.

No browser is downloaded: Playwright launches ``/usr/bin/chromium`` (the
Debian package ``.ci/run`` installs), headless, with the flags that keep it
off the network (no background requests, no updates, no sync). Missing, the
tests skip here and fail in CI (``CI`` set).
"""

from __future__ import annotations

import os
import shutil
import typing as t
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
#: where the tests' screenshots go: docs/dashboard with LAGUNA_SCREENSHOTS=1
#: (to refresh the docs' pictures), else the test's temporary folder
DOCS = Path(__file__).parents[2] / "docs" / "dashboard"

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> t.Iterator[Browser]:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            raise RuntimeError(f"no Chromium at {CHROMIUM}; .ci/run installs Debian's chromium")
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS,
                                              headless=True, timeout=60_000)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture()
def screenshots(tmp_path: Path) -> Path:
    if os.environ.get("LAGUNA_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        return DOCS
    return tmp_path
