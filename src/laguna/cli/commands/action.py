"""``laguna action``: run an action of a deployed object."""

from __future__ import annotations

from pathlib import Path

import click

from laguna.cli.progress import progress_view
from laguna.cli.workdirs import (
    cloud_options,
    cloud_request,
    emit_result,
    json_option,
    key_values,
    make_service,
    stdout_console,
    workdir_option,
)


@click.command("action")
@click.argument("environment")
@click.argument("object_id", metavar="OBJECT")
@click.argument("method")
@click.option("--arg", "arguments", multiple=True, metavar="KEY=VALUE",
              help="An argument of the action; repeatable.")
@cloud_options()
@json_option
@workdir_option
def action(environment: str, object_id: str, method: str, arguments: tuple[str, ...],
           cloud: str | None, inventory: Path | None, as_json: bool) -> None:
    """Run action METHOD of OBJECT (its id, or its name where no other object has it)
    in ENVIRONMENT.

    An object without that action, or arguments the action does not take or
    lacks, is refused before anything runs (exit status 2), listing the
    object's actions; `laguna status ENVIRONMENT` lists them all.
    """
    service = make_service()
    args = key_values(arguments, "--arg")
    request = cloud_request(cloud, inventory)
    if as_json:
        result = service.action(environment, object_id, method, args, cloud=request)
    else:
        with progress_view(stdout_console(), f"{method} of {object_id} in {environment}"
                           ) as view:
            result = service.action(environment, object_id, method, args, sink=view,
                                    cloud=request)
    emit_result(result, as_json)
