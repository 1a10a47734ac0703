"""Entry point of the `laguna` command."""

from __future__ import annotations

import logging

import click

from laguna import __version__, process
from laguna.cli.commands import package as package_command
from laguna.cli.commands import serve as serve_command
from laguna.cli.commands import token as token_command
from laguna.cli.commands import action as action_command
from laguna.cli.commands import deploy as deploy_command
from laguna.cli.commands import deployments as deployments_command
from laguna.cli.commands import environments as environments_command
from laguna.cli.commands import intent as intent_command
from laguna.cli.commands import status as status_command
from laguna.cli.commands import test as test_command
from laguna.cli.commands import forget as forget_command
from laguna.cli.commands import undeploy as undeploy_command
from laguna.cli.commands import outputs as outputs_command
from laguna.cli.commands import validate as validate_command
from laguna.cli.workdirs import workdir_option


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="laguna")
@workdir_option
def cli() -> None:
    """laguna: application catalog and deployment engine (MuranoPL, packages)."""
    # the command is an entry point: it prepares the interpreter once for
    # every subcommand (the engine itself changes no process-wide state)
    process.prepare()


cli.add_command(test_command.test)
cli.add_command(package_command.package)
cli.add_command(deploy_command.deploy)
cli.add_command(status_command.status)
cli.add_command(deployments_command.deployments)
cli.add_command(action_command.action)
cli.add_command(undeploy_command.undeploy)
cli.add_command(forget_command.forget)
cli.add_command(environments_command.environments)
cli.add_command(intent_command.intent)
cli.add_command(serve_command.serve)
cli.add_command(validate_command.validate)
cli.add_command(outputs_command.outputs)
cli.add_command(token_command.token)


def main() -> None:
    # Logs go to stderr, so that --json output on stdout stays one object.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    cli()
