"""The live progress view, rendered to a string console."""

from __future__ import annotations

import datetime
import io

import pytest
from rich.console import Console

from laguna.cli.progress import LiveProgress, PlainProgress, progress_view
from laguna.deploy.events import ComponentChanged, ReportEmitted
from laguna.deploy.result import Component, Report

T = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def test_live_view_shows_components_over_reports() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    view = LiveProgress(console, "deploying shop")
    view(ComponentChanged("shop", "web1", Component("Web", "web", "deploying")))
    view(ReportEmitted("shop", Report("info", "deploying web", T, "web1"),
                       Component("Web", "web", "deploying")))
    view(ReportEmitted("shop", Report("info", "no component", T, "x1")))
    view(ComponentChanged("shop", "web1", Component("Web", "web", "deployed")))
    with console.capture() as captured:
        console.print(view._render())
    assert [line.rstrip() for line in captured.get().splitlines()] == [
        "deploying shop",
        "NAME TYPE STATE",
        "web  Web  deployed",
        "2026-01-01T00:00:00.000000Z info web (Web): deploying web",
        "2026-01-01T00:00:00.000000Z info x1: no component",
    ]


def test_plain_lines_name_objects_by_name_and_type(capsys: pytest.CaptureFixture[str]) -> None:
    view = PlainProgress()
    view(ComponentChanged("shop", "0" * 32, Component("com.example.Web", "web", "deploying")))
    view(ReportEmitted("shop", Report("info", "started", T, "0" * 32),
                       Component("com.example.Web", "web", "deploying")))
    view(ReportEmitted("shop", Report("info", "finished", T)))
    assert capsys.readouterr().out.splitlines() == [
        "web (com.example.Web): deploying",
        "2026-01-01T00:00:00.000000Z info web (com.example.Web): started",
        "2026-01-01T00:00:00.000000Z info: finished",
    ]


def test_view_is_live_only_on_a_terminal() -> None:
    terminal = Console(file=io.StringIO(), force_terminal=True)
    piped = Console(file=io.StringIO(), force_terminal=False)
    assert isinstance(progress_view(terminal, "x"), LiveProgress)
    assert isinstance(progress_view(piped, "x"), PlainProgress)


def test_test_progress_shows_the_running_test_on_a_terminal() -> None:
    from laguna.cli.testprogress import TestProgress
    console = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    with TestProgress(console).running("t.Cases.testSlow"):
        console.file.flush()
        shown = console.file.getvalue()   # type: ignore[attr-defined]
    assert "running t.Cases.testSlow" in shown


def test_test_progress_prints_late_lines_elsewhere(capsys) -> None:
    import threading

    from laguna.cli.testprogress import TestProgress
    console = Console(file=io.StringIO(), width=80, color_system=None)
    assert not console.is_terminal
    printed = ""
    with TestProgress(console, interval=0.01).running("t.Cases.testSlow"):
        # the test "runs" until the reminder has been printed
        idle = threading.Event()
        for _ in range(1000):
            printed += capsys.readouterr().out
            if printed or idle.wait(0.01):
                break
    assert printed.splitlines()[0] == "... t.Cases.testSlow still running (0s)"
    with TestProgress(console, interval=60).running("t.Cases.testQuick"):
        pass
    assert capsys.readouterr().out.count("testQuick") == 0   # a quick test prints nothing
