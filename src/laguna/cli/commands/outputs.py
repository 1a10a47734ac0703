"""``laguna outputs``: the outputs of an environment's last deploy."""

from __future__ import annotations

import click

from laguna.cli.shared import project_option
from laguna.cli.workdirs import json_option, make_service, print_json, workdir_option
from laguna.deploy.errors import error_lines
from laguna.deploy.result import OK, shown


@click.command("outputs")
@click.argument("environment")
@json_option
@project_option
@workdir_option
def outputs(environment: str, as_json: bool) -> None:
    """Print ENVIRONMENT's outputs, one ``name: value`` a line as `laguna status`
    shows them (text as it is, none as -, other values as JSON; --json: typed)."""
    result = make_service().status(environment)
    if result.status != OK and result.error is not None and result.state is None:
        if as_json:
            print_json({"error": result.error.to_json()})
        else:
            for line in error_lines(result.error):
                click.echo(line, err=True)
        raise SystemExit(2)
    if as_json:
        print_json(dict(result.outputs))
    else:
        for key, value in result.outputs.items():
            click.echo(f"{key}: {shown(value)}")
    raise SystemExit(0)
