"""``laguna deployments``: an environment's history."""

from __future__ import annotations

import click

from laguna.cli.workdirs import fail, json_option, make_service, print_json, show, workdir_option
from laguna.deploy.errors import DeployError


@click.command("deployments")
@click.argument("environment")
@json_option
@workdir_option
def deployments(environment: str, as_json: bool) -> None:
    """List ENVIRONMENT's deployments, oldest first, each with its reports."""
    try:
        history = make_service().deployments(environment)
    except DeployError as error:
        fail(error, as_json)
    if as_json:
        print_json(history.to_json())
    else:
        show(history)
