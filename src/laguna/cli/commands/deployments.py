"""``laguna deployments``: an environment's history."""

from __future__ import annotations

import click

from laguna.cli.output import emit, output_option
from laguna.cli.shared import project_option
from laguna.cli.workdirs import fail, make_service, show, workdir_option
from laguna.deploy.errors import DeployError


@click.command("deployments")
@click.argument("environment")
@output_option
@project_option
@workdir_option
def deployments(environment: str, output: str) -> None:
    """List ENVIRONMENT's deployments, oldest first, each with its reports."""
    try:
        history = make_service().deployments(environment)
    except DeployError as error:
        fail(error, output == "json")
    emit({"name": environment, "deployments": history.to_json()}, output,
         lambda: show(history))
