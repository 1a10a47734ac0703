"""``laguna takeover murano``: import a Murano installation's database into the store."""

from __future__ import annotations

import json
from pathlib import Path

import click

from laguna.cli.shared import HiddenAliases
from laguna.cli.sources import catalog_url
from laguna.cli.workdirs import current_workdir, workdir_option


@click.group("takeover")
def takeover() -> None:
    """Take over another installation's database (Murano's), keeping its ids."""


def read_project_map(path: Path) -> dict[str, str]:
    """``--project-map FILE``: a YAML or JSON mapping of Murano tenant ids to
    laguna project ids; a usage error names the file and what is wrong."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise click.BadParameter(f"{path}: {error.strerror}", param_hint="--project-map")
    try:
        data = yaml.safe_load(text) if not path.suffix == ".json" else json.loads(text)
    except (yaml.YAMLError, json.JSONDecodeError) as error:
        raise click.BadParameter(f"{path}: not YAML or JSON: {error}",
                                 param_hint="--project-map") from None
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise click.BadParameter(f"{path}: expected a mapping of tenant ids to project ids "
                                 "(text to text)", param_hint="--project-map")
    return data


@takeover.command("murano")
@click.argument("database_url")
@click.option("--dry-run", is_flag=True,
              help="Print what would be imported, and what could not be, and change nothing.")
@click.option("--project-map", type=click.Path(path_type=Path, dir_okay=False), metavar="FILE",
              help="A YAML or JSON mapping of Murano tenant ids to laguna project ids "
                   "(default: a tenant's id is its project's).")
@click.option("--db-url", "--db", "db_url", metavar="URL", cls=HiddenAliases,
              hidden_aliases=("--db",),
              help="The store to import into (as for `laguna serve --db-url`); default: the "
                   "working directory's store.")
@workdir_option
def murano(database_url: str, dry_run: bool, project_map: Path | None,
           db_url: str | None) -> None:
    """Import the Murano database at DATABASE_URL (migration head 010 to 016;
    MySQL/MariaDB through mysql+pymysql://, PostgreSQL or SQLite) into the store,
    keeping its ids.

    Packages, categories, environments (those Murano deployed come in `taken
    over`: readable and forgettable, not deployable), their deployed sessions and
    deployments with their reports, templates and instance statistics. A second
    run adds what is new and changes nothing else. Exit status 1 when a row could
    not be imported (listed with the reason).
    """
    from laguna.deploy.workdir import open_store
    from laguna.takeover.run import take_over
    from laguna.takeover.source import TakeoverError

    mapping = read_project_map(project_map) if project_map is not None else {}
    database = open_store(catalog_url(db_url, "--db-url")) if db_url \
        else current_workdir().open_store()
    try:
        report = take_over(database_url, database, mapping, dry_run=dry_run)
    except TakeoverError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(2) from None
    finally:
        database.dispose()
    click.echo(report.render(), nl=False)
    raise SystemExit(1 if report.refused else 0)
