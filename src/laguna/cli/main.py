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
# command runs, so `laguna test` does not pay for SQLAlchemy, which the catalog and
# deployment commands import (and Alembic, when their store is older than the
# migrations: laguna.store.db), and `laguna --help` lists them all from their
# one-line summaries here without importing any (tests/unit/cli/test_startup.py
# keeps each summary equal to its command's own)
COMMANDS: dict[str, str] = {
    "action": "Run action METHOD of OBJECT (its id, or its name where no other object has "
              "it) in ENVIRONMENT.",
    "check": "Ask ENVIRONMENT's hosts whether what its components' scripts left is still "
             "there (processes, files, addresses); exit 1 on drift, which `laguna deploy` "
             "of the same blueprint repairs.",
    "deploy": "Deploy MODEL (a MuranoPL object model file or package; a TOSCA service "
              "template or CSAR, or a CSAR's NAME[==VERSION] in the catalog store; an "
              "assembly descriptor, or its assembly::NAME::VERSION in "
              "the -l folders or the catalog store) into an environment.",
    "deployments": "List ENVIRONMENT's deployments, oldest first, each with its reports.",
    "environments": "List the environments, with their language, state and version.",
    "forget": "Delete ENVIRONMENT and its deployments' history from the store.",
    "image": "List, alias, build and remove the container cloud's images.",
    "intent": "Run intent VERB on assembly NAME (TARGET: a state, a cluster component or "
              "an instance name, as the verb needs).",
    "outputs": "Print ENVIRONMENT's outputs, one ``name: value`` a line as `laguna status` "
               "shows them (text as it is, none as -, other values as JSON; --json: typed).",
    "package": "Build, check and import packages, and manage the catalog.",
    "serve": "Serve the Murano v1 REST API (environments, sessions, services, deployments, "
             "actions, catalog, templates, statistics) and the web dashboard (/dashboard/) "
             "until interrupted.",
    "status": "Show ENVIRONMENT's state, components, outputs, the actions its objects offer "
              "(with their arguments: [NAME] may be left out) and its last deployment's error.",
    "takeover": "Take over another installation's database (Murano's), keeping its ids.",
    "test": "Run every test method of every TestFixture class in PACKAGE_DIR.",
    "token": "Tokens of the API's embedded identity (`laguna serve` without --keystone-url).",
    "undeploy": "Run the destruction of ENVIRONMENT's objects and delete its stack; list "
                "what was destroyed.",
    "worker": "Run deployments, actions and static actions that `laguna serve --broker` "
              "queues, until interrupted (SIGTERM or Ctrl-C: the running ones finish first).",
    "validate": "Check PATH (a blueprint in any language laguna reads) and report every "
                "problem, or a summary of what it would deploy (its parts with counts, its "
                "inputs; --json: the blueprint's model).",
    "watch": "Watch ENVIRONMENT: run each node's check when its period is due and the "
             "policies that act on what the checks find (TOSCA: check_running and policies; "
             "an assembly: each Active instance's Integrity, healed when its autoHeal is "
             "true), until interrupted (Ctrl-C ends the pass under way first, then stops).",
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(f"laguna.cli.commands.{cmd_name}")
        return t.cast(click.Command, getattr(module, cmd_name))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their summaries, as click lists them, without
        importing the built-in ones (their summaries are in COMMANDS)."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in COMMANDS:
                # a stand-in with the summary as its help shortens it as click would
                stand_in = click.Command(name, help=COMMANDS[name])
                rows.append((name, stand_in.get_short_help_str(limit)))
                continue
            command = super().get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="laguna")
@workdir_option
def cli() -> None:
    """laguna: application catalog and deployment engine (MuranoPL, TOSCA and assembly
    descriptors; hosts on this machine, in containers or over SSH)."""
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
