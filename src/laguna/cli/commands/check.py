"""``laguna check``: what a deployment made on its hosts that is no longer there."""

from __future__ import annotations

import click

from laguna.cli.workdirs import fail, json_option, make_service, print_json, show, workdir_option
from laguna.deploy.errors import DeployError


@click.command("check")
@click.argument("environment")
@json_option
@workdir_option
def check(environment: str, as_json: bool) -> None:
    """Ask ENVIRONMENT's hosts whether what its components' scripts left is still
    there (processes, files, addresses); exit 1 on drift, which `laguna deploy`
    of the same blueprint repairs."""
    try:
        report = make_service().check(environment)
    except DeployError as error:
        fail(error, as_json)
    if as_json:
        print_json(report.to_json())
    else:
        show(report)
    raise SystemExit(report.exit_code)
