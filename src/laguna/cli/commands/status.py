"""``laguna status``: an environment after its last deployment."""

from __future__ import annotations

import click

from laguna.cli.results import catalog_option, current_workdir, emit_result, json_option
from laguna.cli.shared import workdir_option
from laguna.deploy.readonly import read_status
from laguna.deploy.result import REJECTED


@click.command("status")
@click.argument("environment")
@click.option("--check", is_flag=True,
              help="Exit 1 when the last deployment failed (for scripts); without it "
                   "the exit status is 0 whenever the environment could be shown.")
@json_option
@workdir_option
@catalog_option
def status(environment: str, check: bool, as_json: bool) -> None:
    """Show ENVIRONMENT's state, components, outputs, the actions its objects offer
    (with their arguments: [NAME] may be left out) and its last deployment's error.

    Exit status: 0 when it could be shown (whatever its state), 2 when it cannot
    (no such environment); with --check, 1 when its last deployment failed."""
    # read from the store without the service (SQLAlchemy, the language) when it
    # can be: the same result (laguna.deploy.readonly), else the service's
    result = read_status(current_workdir(), environment)
    if result is None:
        from laguna.cli.workdirs import make_service
        result = make_service().status(environment)
    # a read succeeds when it shows what it was asked: the state is what it shows
    shown = result.status != REJECTED
    emit_result(result, as_json, None if check or not shown else 0)
