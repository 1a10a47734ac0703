"""``laguna status``: an environment after its last deployment."""

from __future__ import annotations

import click

from laguna.cli.workdirs import catalog_option, emit_result, json_option, make_service, workdir_option


@click.command("status")
@click.argument("environment")
@json_option
@workdir_option
@catalog_option
def status(environment: str, as_json: bool) -> None:
    """Show ENVIRONMENT's state, components, outputs, the actions its objects offer
    (with their arguments: [NAME] may be left out) and its last deployment's error."""
    emit_result(make_service().status(environment), as_json)
