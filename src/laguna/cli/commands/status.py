"""``laguna status``: an environment after its last deployment."""

from __future__ import annotations

import dataclasses

import click

from laguna.cli.results import (
    catalog_option,
    current_project,
    current_workdir,
    emit_result,
    json_option,
    print_result,
)
from laguna.cli.shared import project_option, workdir_option
from laguna.deploy.errors import ENVIRONMENT_NOT_FOUND
from laguna.deploy.readonly import read_environments, read_status
from laguna.deploy.result import REJECTED, Result

#: the environment states of a running deployment (laguna.deploy.states.RUNNING),
#: named here so that `laguna status` does not import the state rules
BUSY = ("deploying", "deleting")


@click.command("status")
@click.argument("environment")
@click.option("--check", is_flag=True,
              help="Exit 1 when the last deployment failed (for scripts); without it "
                   "the exit status is 0 whenever the environment could be shown.")
@click.option("--watch", is_flag=True,
              help="Then print the running deployment's events (its start, reports and "
                   "end) as they come, by whichever process runs it, until it ends; "
                   "nothing more when none runs. With --json: one JSON object a line "
                   "per event after the status.")
@click.option("--api", "api_url", metavar="URL", envvar="LAGUNA_API_URL",
              help="With --watch: follow the event stream of the `laguna serve` at URL "
                   "(its environment NAME in the token's project) instead of the "
                   "working directory's store; env LAGUNA_API_URL.")
@click.option("--token", metavar="TOKEN", envvar="LAGUNA_TOKEN",
              help="The API token for --api (`laguna token create`); env LAGUNA_TOKEN.")
@json_option
@project_option
@workdir_option
@catalog_option
def status(environment: str, check: bool, watch: bool, api_url: str | None,
           token: str | None, as_json: bool) -> None:
    """Show ENVIRONMENT's state, components, outputs, the actions its objects offer
    (with their arguments: [NAME] may be left out) and its last deployment's error.

    Exit status: 0 when it could be shown (whatever its state), 2 when it cannot
    (no such environment); with --check, 1 when its last deployment failed (with
    --watch: the deployment watched)."""
    if api_url:
        if not watch:
            raise click.UsageError("--api follows a remote event stream: it needs --watch")
        raise SystemExit(_watch_api(api_url, token, environment, as_json, check))
    # read from the store without the service (SQLAlchemy, the language) when it
    # can be: the same result (laguna.deploy.readonly), else the service's
    result = read_status(current_workdir(), environment, current_project())
    if result is None:
        from laguna.cli.workdirs import make_service
        result = make_service().status(environment)
    result = _elsewhere(result, environment)
    # a read succeeds when it shows what it was asked: the state is what it shows
    shown = result.status != REJECTED
    if not (watch and shown and result.state in BUSY):
        emit_result(result, as_json, None if check or not shown else 0)
    print_result(result, as_json)
    raise SystemExit(_watch(environment, result.state, as_json, check))


def _elsewhere(result: Result, environment: str) -> Result:
    """An environment not found in the project: the projects that have one of
    that name said in the error (a Murano takeover brings its tenants' as theirs)."""
    if result.error is None or result.error.kind != ENVIRONMENT_NOT_FOUND:
        return result
    project = current_project()
    listed = read_environments(current_workdir(), None)
    projects = sorted(e.project for e in (listed.environments if listed else ())
                      if e.name == environment and e.project != project)
    if not projects:
        return result
    message = (f"{result.error.message} in project {project}; project"
               f"{'s' if len(projects) > 1 else ''} {', '.join(projects)} "
               f"{'have' if len(projects) > 1 else 'has'} one: laguna status {environment} "
               f"--project {projects[0]}")
    return dataclasses.replace(result, error=dataclasses.replace(result.error,
                                                                  message=message))


def _watch_api(url: str, token: str | None, environment: str, as_json: bool,
               check: bool) -> int:
    from laguna.cli.apiwatch import watch_api

    try:
        watched = watch_api(url, token, environment, as_json)
    except KeyboardInterrupt:
        return 130
    return _exit_status(environment, watched.gone, watched.state, check)


def _exit_status(environment: str, gone: bool, state: str | None, check: bool) -> int:
    if gone:
        click.echo(f"environment {environment!r} was deleted", err=True)
        return 2
    return 1 if check and state == "failure" else 0


def _watch(environment: str, shown: str | None, as_json: bool, check: bool) -> int:
    from laguna.cli.watch import watch

    database = current_workdir().open_store()
    try:
        watched = watch(database, current_project(), environment, as_json, shown)
    except KeyboardInterrupt:
        return 130
    finally:
        database.dispose()
    return _exit_status(environment, watched.gone, watched.state, check)
