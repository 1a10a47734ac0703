"""``laguna undeploy``: destroy what an environment deployed, keeping its history."""

from __future__ import annotations

from pathlib import Path

import click

from laguna.cli.progress import progress_view
from laguna.cli.shared import project_option
from laguna.cli.workdirs import (
    cloud_options,
    cloud_request,
    emit_result,
    json_option,
    make_service,
    stdout_console,
    workdir_option,
)


@click.command("undeploy")
@click.argument("environment")
@cloud_options()
@json_option
@project_option
@workdir_option
def undeploy(environment: str, cloud: str | None, inventory: Path | None,
             as_json: bool) -> None:
    """Run the destruction of ENVIRONMENT's objects and delete its stack; list what
    was destroyed."""
    service = make_service()
    request = cloud_request(cloud, inventory)
    if as_json:
        result = service.undeploy(environment, cloud=request)
    else:
        with progress_view(stdout_console(), f"undeploying {environment}") as view:
            result = service.undeploy(environment, sink=view, cloud=request)
    emit_result(result, as_json)
