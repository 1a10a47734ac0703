"""``laguna environments``: the environments of the working directory."""

from __future__ import annotations

import click

from laguna.cli.output import emit, output_option
from laguna.cli.workdirs import catalog_option, make_service, show, workdir_option


@click.command("environments")
@output_option
@workdir_option
@catalog_option
def environments(output: str) -> None:
    """List the environments, with their language, state and version."""
    listed = make_service().environments()
    emit({"environments": listed.to_json()}, output, lambda: show(listed))
