"""``laguna token``: tokens of the API's embedded identity."""

from __future__ import annotations

import datetime

import click

from laguna.cli.sources import catalog_url
from laguna.cli.workdirs import current_workdir, workdir_option


@click.group("token")
def token() -> None:
    """Tokens of the API's embedded identity (`laguna serve` without --keystone-url)."""


@token.command("create")
@click.option("--project", required=True, help="The project (tenant); created if missing.")
@click.option("--user", required=True, help="The user; created if missing.")
@click.option("--admin", is_flag=True, help="Make the user an admin of the project "
                                            "(may list all tenants).")
@click.option("--hours", default=24.0, show_default=True, type=click.FloatRange(min=0.001),
              help="How long the token is valid.")
@click.option("--db", "db_url", metavar="URL",
              help="The store (as for `laguna serve --db`); default: the working "
                   "directory's store.")
@workdir_option
def create(project: str, user: str, admin: bool, hours: float, db_url: str | None) -> None:
    """Create a token for USER in PROJECT; it is printed as the last line."""
    from laguna.deploy.workdir import open_store
    from laguna.store.identity import issue_token

    database = open_store(catalog_url(db_url, "--db")) if db_url \
        else current_workdir().open_store()
    try:
        with database.session() as session:
            now = datetime.datetime.now(datetime.timezone.utc)
            value = issue_token(session, project, user, admin, now,
                                datetime.timedelta(hours=hours))
    finally:
        database.dispose()
    click.echo(f"project {project}, user {user}{' (admin)' if admin else ''}, "
               f"valid for {hours:g} h", err=True)
    click.echo(value)
