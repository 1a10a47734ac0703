"""The progress view of a test run.

On a terminal the running test is a spinner line (gone when the test ends);
elsewhere a test running longer than :data:`STILL_RUNNING_AFTER` seconds gets
a plain ``... NAME still running`` line, repeated at that interval, so a log
shows what a long run is doing and a short run prints nothing more. Apart
from :mod:`laguna.cli.progress`, whose deployment views bring the deployment
layer, which `laguna test` does not need.
"""

from __future__ import annotations

import contextlib
import threading
import time
import typing as t

import click
from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner

#: seconds a test runs before a plain output says it is still running
STILL_RUNNING_AFTER = 10.0


class TestProgress:
    """Which test is running: a spinner on a terminal, late plain lines elsewhere."""

    def __init__(self, console: Console, interval: float = STILL_RUNNING_AFTER) -> None:
        self.console = console
        self.interval = interval

    @contextlib.contextmanager
    def running(self, name: str) -> t.Iterator[None]:
        if self.console.is_terminal:
            spinner = Spinner("dots", text=f"running {name}")
            with Live(spinner, console=self.console, transient=True,
                      refresh_per_second=8) as live:
                live.refresh()   # shown at once, not at the first tick
                yield
            return
        done = threading.Event()
        started = time.monotonic()

        def remind() -> None:
            while not done.wait(self.interval):
                click.echo(f"... {name} still running ({time.monotonic() - started:.0f}s)")
        reminder = threading.Thread(target=remind, name="test-progress", daemon=True)
        reminder.start()
        try:
            yield
        finally:
            done.set()
            reminder.join()
