"""The live progress view, rendered to a string console."""

from __future__ import annotations

import datetime
import io

from rich.console import Console

from laguna.cli.progress import LiveProgress, PlainProgress, progress_view
from laguna.deploy.events import ComponentChanged, ReportEmitted
from laguna.deploy.result import Component, Report

T = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def test_live_view_shows_components_over_reports() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    view = LiveProgress(console, "deploying shop")
    view(ComponentChanged("shop", "web1", Component("Web", "web", "deploying")))
    view(ReportEmitted("shop", Report("info", "deploying web", T, "web1")))
    view(ComponentChanged("shop", "web1", Component("Web", "web", "deployed")))
    with console.capture() as captured:
        console.print(view._render())
    assert [line.rstrip() for line in captured.get().splitlines()] == [
        "deploying shop",
        "ID   TYPE NAME STATE",
        "web1 Web  web  deployed",
        "2026-01-01T00:00:00.000000Z info web1: deploying web",
    ]


def test_view_is_live_only_on_a_terminal() -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True)
    piped = Console(file=io.StringIO(), force_terminal=False)
    assert isinstance(progress_view(terminal, "x"), LiveProgress)
    assert isinstance(progress_view(piped, "x"), PlainProgress)
