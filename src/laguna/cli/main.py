"""Entry point of the `laguna` command."""

from __future__ import annotations

import importlib
import logging
import typing as t

import click

from laguna import __version__, privacy, process
from laguna.cli.shared import workdir_option

# the subcommands, each defined by the module of its name under
# laguna.cli.commands (as an attribute of that name): a command's module is imported only when the
# command runs or is listed, so `laguna test` does not pay for SQLAlchemy, which
# the catalog and deployment commands import (and Alembic, when their store is
# older than the migrations: laguna.store.db)
COMMANDS = frozenset((
    "action", "deploy", "deployments", "environments", "forget", "intent", "outputs",
    "package", "serve", "status", "test", "token", "undeploy", "validate"))


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(f"laguna.cli.commands.{cmd_name}")
        return t.cast(click.Command, getattr(module, cmd_name))


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="laguna")
@workdir_option
def cli() -> None:
    """laguna: application catalog and deployment engine (MuranoPL, packages)."""
    # the command is an entry point: it prepares the interpreter once for
    # every subcommand (the engine itself changes no process-wide state)
    process.prepare()
    # what the command, the server (`laguna serve`) and the hosts' agents
    # create is their user's alone: stores, plans, logs (docs/SECURITY.md)
    privacy.restrict_umask()


def main() -> None:
    # Logs go to stderr, so that --json output on stdout stays one object.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    cli()
