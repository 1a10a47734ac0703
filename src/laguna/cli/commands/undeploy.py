"""``laguna undeploy``: destroy what an environment deployed, keeping its history."""

from __future__ import annotations

import click

from laguna.cli.progress import progress_view
from laguna.cli.workdirs import (
    emit_result,
    json_option,
    make_service,
    stdout_console,
    workdir_option,
)


@click.command("undeploy")
@click.argument("environment")
@json_option
@workdir_option
def undeploy(environment: str, as_json: bool) -> None:
    """Run the destruction of ENVIRONMENT's objects and delete its stack; list what
    was destroyed."""
    service = make_service()
    if as_json:
        result = service.undeploy(environment)
    else:
        with progress_view(stdout_console(), f"undeploying {environment}") as view:
            result = service.undeploy(environment, sink=view)
    emit_result(result, as_json)
