"""What the deployment commands print and the options they share, without the
deployment service: ``laguna status`` and ``laguna environments`` answer from
the store through :mod:`laguna.deploy.readonly` with this module alone, and
import :mod:`laguna.cli.workdirs` (the service, SQLAlchemy) only when the
service must answer. :mod:`laguna.cli.workdirs` re-exports these names.
"""

from __future__ import annotations

import json
import os
import typing as t
from pathlib import Path

import click

from laguna.cli.shared import PROJECT_KEY, WORKDIR_KEY, stdout_console
from laguna.deploy.errors import DeployError, Rejected, error_lines, problems_of
from laguna.deploy.result import REJECTED, Action, Result, actions_table
from laguna.deploy.workdir import Workdir, resolve_workdir
from laguna.store.names import LOCAL_PROJECT

F = t.TypeVar("F", bound=t.Callable[..., t.Any])


def catalog_option(function: F) -> F:
    """``-l CATALOG``, accepted (and not needed) by commands that read only the store,
    so that every assembly command line can carry the same options."""
    return click.option("-l", "--lib", "_libs", multiple=True, expose_value=False,
                        type=click.Path(path_type=Path),
                        help="Accepted for symmetry with deploy; not used.")(function)


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON object on stdout and nothing else.")(function)


def current_workdir() -> Workdir:
    ctx = click.get_current_context()
    return Workdir(resolve_workdir(ctx.meta.get(WORKDIR_KEY), os.environ, Path.cwd()))


def current_project() -> str:
    """The command's ``--project`` (cli.shared.project_option), else ``local``."""
    return str(click.get_current_context().meta.get(PROJECT_KEY, LOCAL_PROJECT))


def print_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def show(renderable: object, err: bool = False) -> None:
    """Print a domain object through its ``__rich_console__`` (no trailing blanks),
    on stderr with ``err``."""
    console = stdout_console()
    if console.is_terminal and not err:
        console.print(renderable)
        return
    with console.capture() as captured:
        console.print(renderable)
    click.echo("\n".join(line.rstrip() for line in captured.get().splitlines()), err=err)


def fail(error: DeployError, as_json: bool) -> t.NoReturn:
    """One clear line (or the error object with --json), exit status 2."""
    if as_json:
        print_json({"error": {"kind": error.kind, "code": problems_of(error)[0].code,
                              "message": error.message}})
    else:
        for line in error_lines(error):
            click.echo(line, err=True)
    raise SystemExit(2)


def result_json(result: Result) -> object:
    """A result as JSON: the shared shape, or its blueprint language's own (assembly)."""
    if result.language == "assembly" or (result.language is None and _assembly_command()):
        from laguna.frontends.assembly import assembly_json
        return assembly_json(result)
    return result.to_json()


def _assembly_command() -> bool:
    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.info_name == "intent"


def emit_result(result: Result, as_json: bool, exit_code: int | None = None) -> t.NoReturn:
    """Print a result (the JSON object, or its rendering; a rejection as one line
    on stderr) and exit: 0 ok, 1 failed, 2 rejected (or ``exit_code``)."""
    print_result(result, as_json)
    raise SystemExit(result.exit_code if exit_code is None else exit_code)


def print_result(result: Result, as_json: bool) -> None:
    """:func:`emit_result` without the exit (``status --watch`` goes on)."""
    if as_json:
        print_json(result_json(result))
    elif result.status == REJECTED and result.error is not None:
        for line in error_lines(result.error, Rejected.code):
            click.echo(line, err=True)
        listed = result.error.details.get("actions")
        if listed:
            # an action refused (deploy.actions): what could have been meant
            show(actions_table([Action.from_json(a) for a in listed]), err=True)
    elif result.language == "assembly":
        from laguna.frontends.assembly import AssemblyView
        show(AssemblyView(result))
    else:
        show(result)
