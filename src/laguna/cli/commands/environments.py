"""``laguna environments``: the environments of the working directory."""

from __future__ import annotations

import click

from laguna.cli.workdirs import catalog_option, json_option, make_service, print_json, show, workdir_option


@click.command("environments")
@json_option
@workdir_option
@catalog_option
def environments(as_json: bool) -> None:
    """List the environments, with their language, state and version."""
    listed = make_service().environments()
    if as_json:
        print_json(listed.to_json())
    else:
        show(listed)
