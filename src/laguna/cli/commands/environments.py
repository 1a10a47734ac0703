"""``laguna environments``: the environments of the working directory."""

from __future__ import annotations

import click

from laguna.cli.output import emit, output_option
from laguna.cli.results import catalog_option, current_workdir, show
from laguna.cli.shared import workdir_option
from laguna.deploy.readonly import read_environments


@click.command("environments")
@output_option
@workdir_option
@catalog_option
def environments(output: str) -> None:
    """List the environments, with their language, state and version."""
    # read from the store without the service (SQLAlchemy) when it can be: the
    # same list (laguna.deploy.readonly), else the service's
    listed = read_environments(current_workdir())
    if listed is None:
        from laguna.cli.workdirs import make_service
        listed = make_service().environments()
    emit({"environments": listed.to_json()}, output, lambda: show(listed))
