"""Entry point of the `laguna` command."""

from __future__ import annotations

import click

from laguna import __version__, process
from laguna.cli.commands import package as package_command
from laguna.cli.commands import test as test_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="laguna")
def cli() -> None:
    """laguna: application catalog and deployment engine (MuranoPL, packages)."""
    # the command is an entry point: it prepares the interpreter once for
    # every subcommand (the engine itself changes no process-wide state)
    process.prepare()


cli.add_command(test_command.test)
cli.add_command(package_command.package)


def main() -> None:
    cli()
