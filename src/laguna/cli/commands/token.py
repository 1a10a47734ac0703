"""``laguna token``: tokens of the API's embedded identity."""

from __future__ import annotations

import datetime
import json

import click

from laguna.cli.shared import HiddenAliases
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
@click.option("--db-url", "--db", "db_url", metavar="URL", cls=HiddenAliases,
              hidden_aliases=("--db",),
              help="The store (as for `laguna serve --db-url`); default: the working "
                   "directory's store.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object (project, user, admin, expires, token).")
@workdir_option
def create(project: str, user: str, admin: bool, hours: float, db_url: str | None,
           as_json: bool) -> None:
    """Create a token for USER in PROJECT; it is printed as the last line."""
    from laguna.deploy.workdir import open_store
    from laguna.store.identity import issue_token

    database = open_store(catalog_url(db_url, "--db-url")) if db_url \
        else current_workdir().open_store()
    now = datetime.datetime.now(datetime.timezone.utc)
    lifetime = datetime.timedelta(hours=hours)
    try:
        with database.session() as session:
            value = issue_token(session, project, user, admin, now, lifetime)
    finally:
        database.dispose()
    if as_json:
        click.echo(json.dumps({"project": project, "user": user, "admin": admin,
                               "expires": (now + lifetime).isoformat(), "token": value},
                              indent=2))
        return
    click.echo(f"project {project}, user {user}{' (admin)' if admin else ''}, "
               f"valid for {hours:g} h", err=True)
    click.echo(value)
