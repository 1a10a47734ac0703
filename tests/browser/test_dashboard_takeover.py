"""A Murano installation taken over (``laguna takeover murano``), read in the
dashboard: each tenant sees its own environments, a taken-over one with its
status and Murano's deployments with their reports."""

from __future__ import annotations

import subprocess
import sys
import typing as t
from pathlib import Path

from tests.fixtures.murano import build as murano
from tests.servers import serve

from .test_dashboard import signed_in

if t.TYPE_CHECKING:
    from playwright.sync_api import Browser


def test_a_taken_over_installation_in_the_dashboard(browser: Browser, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    source = f"sqlite:///{tmp_path / 'murano.sqlite'}"
    murano.build(source)
    taken = subprocess.run([sys.executable, "-m", "laguna.cli", "--workdir", str(tmp_path),
                            "takeover", "murano", source], capture_output=True, text=True,
                           timeout=300)
    # exit status 1: the rows it lists as not imported (tests/unit/takeover)
    assert taken.returncode == 1, taken.stderr
    with serve(tmp_path) as server:
        page = signed_in(browser, server, server.token(project=murano.TENANT_B, user="bob"))
        page.get_by_role("link", name="Environments").click()
        rows = page.get_by_role("table", name="Environments").get_by_role("row")
        # the heading, then tenant B's one (lost-class was refused: its class is unknown)
        expect(rows).to_have_count(2)
        expect(rows.nth(1)).to_contain_text("deployed-bad")
        expect(rows.nth(1).locator(".status")).to_have_text("taken over")
        expect(page.get_by_role("link", name="never-deployed")).to_have_count(0)

        page.get_by_role("link", name="deployed-bad").click()
        expect(page.locator("#status")).to_have_text("taken over")
        reports = page.get_by_role("list", name="Reports of the deployment of "
                                                "2023-05-04T10:34:00")
        expect(reports.get_by_role("listitem")).to_have_text([
            "2023-05-04T10:34:00 Action deploy is scheduled",
            "2023-05-04T10:35:00 Probe db failed: script exited 3",
            "2023-05-04T10:35:00 Deployment finished with errors"])
