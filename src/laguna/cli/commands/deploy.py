"""``laguna deploy``: deploy a blueprint into a named environment."""

from __future__ import annotations

from pathlib import Path

import click

from laguna.cli.progress import progress_view
from laguna.cli.workdirs import (
    emit_result,
    json_option,
    key_values,
    make_service,
    stdout_console,
    workdir_option,
)
from laguna.deploy.frontend import PrepareOptions


@click.command("deploy")
@click.argument("model", type=click.Path(path_type=Path))
@click.option("-l", "--lib", "libs", multiple=True, type=click.Path(path_type=Path),
              help="A folder of packages, or a package (folder or zip), the model uses; "
                   "repeatable. Later commands on the environment need none.")
@click.option("--name", help="The environment (default: the name the model gives, else "
                             "the file's name without its extension).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A value for the blueprint's inputs; repeatable.")
@click.option("--dry-run", is_flag=True,
              help="Run against a recording cloud and agent; print the stack templates "
                   "and execution plans that would be sent. Nothing is kept.")
@json_option
@workdir_option
def deploy(model: Path, libs: tuple[Path, ...], name: str | None, settings: tuple[str, ...],
           dry_run: bool, as_json: bool) -> None:
    """Deploy MODEL (an object model file, or a package) into an environment.

    Redeploying a changed model applies the difference. Exit status: 0 when the
    deployment succeeded, 1 when it failed, 2 when it was refused before
    anything ran.
    """
    service = make_service()
    options = PrepareOptions(libs=libs, settings=key_values(settings, "--set"), name=name)
    if as_json:
        result = service.deploy(model, options, dry_run=dry_run)
    else:
        title = f"{'dry run of' if dry_run else 'deploying'} {name or model}"
        with progress_view(stdout_console(), title) as view:
            result = service.deploy(model, options, dry_run=dry_run, sink=view)
    emit_result(result, as_json)
