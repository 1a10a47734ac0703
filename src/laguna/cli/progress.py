"""Live progress views of a deployment (a test run's: :mod:`laguna.cli.testprogress`).

On a terminal, a rich ``Live`` display: a table of components and their
states over the latest reports. Otherwise (pipes, files, CI) one plain line
per report and per component change, as they arrive.
"""

from __future__ import annotations

import contextlib
import threading
import time
import types
import typing as t

import click
from rich.console import Console, Group
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from laguna.deploy.events import ComponentChanged, DeploymentStarted, Event, ReportEmitted
from laguna.deploy.result import Component, components_table

#: how many of the latest reports the live view shows
SHOWN_REPORTS = 12

_STYLE = {"info": "", "warning": "yellow", "error": "bold red"}


class PlainProgress:
    """One line per event on stdout."""

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, event: Event) -> None:
        if isinstance(event, ReportEmitted):
            click.echo(_line(event))
        elif isinstance(event, ComponentChanged):
            c = event.component
            click.echo(f"{c.title()}: {c.state}")
        elif isinstance(event, DeploymentStarted):
            click.echo(f"{event.operation} of {event.environment} started "
                       f"(deployment {event.deployment_id})")


def _line(event: ReportEmitted) -> str:
    """A report naming its object by name and type (its id when it is no component)."""
    return event.report.line(event.subject.title() if event.subject is not None else None)


class LiveProgress:
    """A table of components and the latest reports, redrawn as events arrive."""

    def __init__(self, console: Console, title: str) -> None:
        self.title = title
        self.components: dict[str, Component] = {}
        self.reports: list[str] = []
        self.levels: list[str] = []
        self.live = Live(self._render(), console=console, refresh_per_second=8,
                         transient=False)

    def __enter__(self) -> LiveProgress:
        self.live.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: types.TracebackType | None) -> None:
        self.live.__exit__(exc_type, exc, tb)

    def __call__(self, event: Event) -> None:
        if isinstance(event, ReportEmitted):
            self.reports.append(_line(event))
            self.levels.append(event.report.level)
        elif isinstance(event, ComponentChanged):
            self.components[event.object_id] = event.component
        else:
            return
        self.live.update(self._render())

    def _render(self) -> Group:
        table = components_table(self.components, self.title, ids=False)
        lines = [Text(line, style=_STYLE.get(level, "")) for line, level in
                 zip(self.reports[-SHOWN_REPORTS:], self.levels[-SHOWN_REPORTS:])]
        return Group(table, *lines)


Progress = t.Union[PlainProgress, LiveProgress]

def progress_view(console: Console, title: str) -> Progress:
    """The live view on a terminal, plain lines elsewhere."""
    return LiveProgress(console, title) if console.is_terminal else PlainProgress()
