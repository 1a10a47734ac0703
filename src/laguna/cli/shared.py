"""What every command shares and the root group needs: ``--workdir`` and the
console. Kept apart from :mod:`laguna.cli.workdirs` because that one brings the
deployment layer (SQLAlchemy, Alembic), which `laguna test` and `laguna
--help` must not pay for.
"""

from __future__ import annotations

import sys
import typing as t

import click

if t.TYPE_CHECKING:
    from rich.console import Console

F = t.TypeVar("F", bound=t.Callable[..., t.Any])

# where the root group's or a command's --workdir is kept for the command
WORKDIR_KEY = "laguna.workdir"
# where a command's --project is kept (absent: the command line's own project)
PROJECT_KEY = "laguna.project"


def _remember_workdir(ctx: click.Context, _param: click.Parameter,
                      value: str | None) -> None:
    if value is not None:
        ctx.meta[WORKDIR_KEY] = value


def workdir_option(function: F) -> F:
    """``--workdir DIR``, on the root group and on every deployment command."""
    return click.option(
        "--workdir", metavar="DIR", expose_value=False, callback=_remember_workdir,
        help="The working directory holding the deployment store (DIR/.laguna/); "
             "default: $LAGUNA_WORKDIR, else the current directory.")(function)


def _remember_project(ctx: click.Context, _param: click.Parameter,
                      value: str | None) -> None:
    if value:
        ctx.meta[PROJECT_KEY] = value


def project_option(function: F) -> F:
    """``--project PROJECT``: whose environments a command reads or lets go of.
    Environments made from the command line are project ``local``'s; the API's
    and a Murano takeover's are their project's (a tenant id, docs/TAKEOVER.md)."""
    return click.option(
        "--project", metavar="PROJECT", envvar="LAGUNA_PROJECT", expose_value=False,
        callback=_remember_project,
        help="The project whose environment it is (the API's projects, a taken-over "
             "Murano tenant's); default: $LAGUNA_PROJECT, else local, the command "
             "line's own.")(function)


def stdout_console() -> Console:
    # rich is imported here, not with this module: `laguna --help` and
    # `--version` (which import this module) never print through it
    from rich.console import Console

    terminal = sys.stdout.isatty()
    return Console(file=sys.stdout, highlight=False, soft_wrap=True,
                   width=None if terminal else 200,
                   color_system="auto" if terminal else None)


class HiddenAliases(click.Option):
    """An option whose old spellings (``hidden_aliases``) still work but are not
    shown in ``--help``: one name per idea across commands, no command line of
    an earlier release broken."""

    def __init__(self, *args: t.Any, hidden_aliases: t.Sequence[str] = (),
                 **kwargs: t.Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_aliases = tuple(hidden_aliases)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown_opts = self.opts
        self.opts = [name for name in self.opts if name not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown_opts
