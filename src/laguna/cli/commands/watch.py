"""``laguna watch``: watch a deployed environment in the foreground, as the
worker's ``watch`` job does for a server (:class:`laguna.deploy.frontend.Watcher`)."""

from __future__ import annotations

import datetime
import json
import signal
import threading
import types

import click

from laguna.cli.results import emit_result, print_result
from laguna.cli.workdirs import json_option, make_service, workdir_option
from laguna.deploy.errors import ENVIRONMENT_BUSY
from laguna.deploy.result import OK, REJECTED, Result

#: the longest wait between two passes: what the environment's due time does not
#: say (a deploy or an action by another process sets it) is noticed this late
LONGEST_WAIT = 30.0
#: how soon a pass is tried again when another operation holds the environment
BUSY_WAIT = 0.5


@click.command("watch")
@click.argument("environment")
@click.option("--once", is_flag=True, help="One pass (the checks and policies due now), "
              "then exit.")
@click.option("--period", type=click.FloatRange(min=0.1), metavar="SECONDS",
              help="Check every node this often instead of each check's own period.")
@json_option
@workdir_option
def watch(environment: str, once: bool, period: float | None, as_json: bool) -> None:
    """Watch ENVIRONMENT: run each node's check when its period is due and the
    policies that act on what the checks find (TOSCA: check_running and
    policies; an assembly: each Active instance's Integrity, healed when its
    autoHeal is true), until interrupted (Ctrl-C ends the pass under way
    first, then stops).

    Each pass that changed something (a node found not running or running
    again, a policy that acted) is printed: its reports (--json: one JSON object
    a line). A pass that found everything as it was prints nothing and leaves
    no deployment in the history.
    """
    service = make_service()
    if once:
        result, _due = service.watch(environment, period=period)
        emit_result(result, as_json)
    stop = threading.Event()

    def interrupted(signum: int, frame: types.FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    first = True
    try:
        while not stop.is_set():
            try:
                result, due = service.watch(environment, period=period)
            except Exception as exc:  # noqa: BLE001 - a watcher outlives a bad moment
                # (a store busy past its timeout): said, and tried again
                click.echo(f"watch pass of {environment} failed: {type(exc).__name__}: "
                           f"{exc}", err=True)
                stop.wait(BUSY_WAIT)
                continue
            if result.status == REJECTED and result.error is not None \
                    and result.error.kind == ENVIRONMENT_BUSY:
                # another operation holds it (an action, a deploy): the pass is
                # tried again when it is over
                stop.wait(BUSY_WAIT)
                continue
            if result.status == REJECTED:
                emit_result(result, as_json)
            if result.reports:     # a pass that changed something
                _show(result, as_json)
            if first:
                click.echo(f"watching {environment} (Ctrl-C stops)", err=True)
                first = False
            stop.wait(_wait(due))
    finally:
        signal.signal(signal.SIGINT, previous)
    click.echo(f"watch of {environment} stopped", err=True)
    raise SystemExit(0)


def _wait(due: datetime.datetime | None) -> float:
    if due is None:
        return LONGEST_WAIT
    left = (due - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    return min(max(left, 0.05), LONGEST_WAIT)


def _show(result: Result, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({
            "name": result.name, "status": result.status, "state": result.state,
            "components": {key: c.state for key, c in result.components.items()},
            "reports": [r.to_json() for r in result.reports]}, ensure_ascii=False))
    elif result.status != OK:
        print_result(result, False)
    else:
        for report in result.reports:
            click.echo(report.line())
