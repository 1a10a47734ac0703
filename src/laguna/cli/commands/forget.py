"""``laguna forget``: delete an environment with nothing deployed, and its history."""

from __future__ import annotations

import click

from laguna.cli.shared import project_option
from laguna.cli.workdirs import emit_result, json_option, make_service, workdir_option
from laguna.deploy.result import OK


@click.command("forget")
@click.argument("environment")
@json_option
@project_option
@workdir_option
def forget(environment: str, as_json: bool) -> None:
    """Delete ENVIRONMENT and its deployments' history from the store.

    For an environment with nothing deployed: one whose first deploy failed, or
    one undeployed (`laguna undeploy` first otherwise). Exit status 2 when it is
    refused.
    """
    result = make_service().forget(environment)
    if result.status == OK and not as_json:
        click.echo(f"environment {environment}: forgotten")
        raise SystemExit(0)
    emit_result(result, as_json)
