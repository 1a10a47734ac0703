"""``laguna environments``: the environments of the working directory."""

from __future__ import annotations

import click
from click.core import ParameterSource

from laguna.cli.output import emit, output_option
from laguna.cli.results import catalog_option, current_project, current_workdir, show
from laguna.cli.shared import project_option, workdir_option
from laguna.deploy.readonly import read_environments


@click.command("environments")
@click.option("--all-projects", is_flag=True,
              help="Every project's environments, the project beside each (after a "
                   "Murano takeover: every tenant's).")
@output_option
@project_option
@workdir_option
@catalog_option
def environments(all_projects: bool, output: str) -> None:
    """List the environments, with their language, state and version."""
    ctx = click.get_current_context()
    if all_projects and ctx.get_parameter_source("project") is ParameterSource.COMMANDLINE:
        raise click.UsageError("--all-projects lists every project: leave out --project")
    # read from the store without the service (SQLAlchemy) when it can be: the
    # same list (laguna.deploy.readonly), else the service's
    listed = read_environments(current_workdir(), None if all_projects else current_project())
    if listed is None:
        from laguna.cli.workdirs import make_service
        listed = make_service().environments(all_projects)
    emit({"environments": listed.to_json()}, output, lambda: show(listed))
