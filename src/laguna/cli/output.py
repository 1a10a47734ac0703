"""``-o table|json|yaml``: how a listing command prints what it lists.

Every listing command takes ``-o/--output``; ``--json`` is kept as the alias of
``-o json`` it always was. JSON and YAML print the same data (the command's
``--json`` shape), the table its human rendering. Light to import: the
listing commands of the catalog do not load the deployment layer.
"""

from __future__ import annotations

import json
import typing as t

import click

F = t.TypeVar("F", bound=t.Callable[..., t.Any])

FORMATS = ("table", "json", "yaml")
_JSON_FLAG = "laguna.output.json"


def _json_flag(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_JSON_FLAG] = True
        if "output" in ctx.params:      # -o came first on the command line: --json wins
            ctx.params["output"] = "json"


def _output_value(ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
    if value is None:
        return "json" if ctx.meta.get(_JSON_FLAG) else "table"
    return value


def output_option(function: F) -> F:
    """``-o/--output table|json|yaml`` (a parameter ``output``) and ``--json``."""
    function = click.option(
        "--json", "_json", is_flag=True, expose_value=False, callback=_json_flag,
        help="The same as -o json.")(function)
    return click.option(
        "-o", "--output", "output", type=click.Choice(FORMATS), callback=_output_value,
        help="table (the default), json or yaml.")(function)


def emit(data: object, output: str, table: t.Callable[[], None]) -> None:
    """``data`` as JSON or YAML, or ``table()`` for the human listing."""
    if output == "json":
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif output == "yaml":
        import yaml

        click.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip("\n"))
    else:
        table()
