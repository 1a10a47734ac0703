"""``laguna package``: build, check, import and manage packages in the catalog."""

from __future__ import annotations

import dataclasses
import io
import json
import typing as t
from pathlib import Path

import click
import rich.box
from rich.console import Console
from rich.table import Table

from laguna.cli.errors import CommandError, OutputError, described
from laguna.cli.output import emit, output_option
from laguna.cli.shared import workdir_option
from laguna.cli.sources import (
    configured_url, db_url_option, lib_option, missing_sqlite_file, open_catalog, package_sources,
)
from laguna.errors import LagunaError
from laguna.packages.archive import build_archive
from laguna.packages.check import CheckResult, check_path
from laguna.packages.errors import PackageNotFoundError, VersionError
from laguna.packages.package import Package
from laguna.packages.versions import Version, parse_version
from laguna.source import Diagnostic, render
from laguna.store import packages as repo
from laguna.store.db import Database
from laguna.store.models import PackageRecord
from laguna.testing.packages import import_checkers


def _database(db_url: str | None) -> Database:
    """The catalog, migrated; the URL comes from the option or the config object."""
    return open_catalog(configured_url(db_url))


def _readable_database(db_url: str | None) -> Database | None:
    """The catalog to read, or None when it is an SQLite file that does not exist
    yet: a read finds nothing there and creates nothing."""
    url = configured_url(db_url)
    return None if missing_sqlite_file(url) else open_catalog(url)


def _fail(error: LagunaError | str) -> t.NoReturn:
    if isinstance(error, str):
        raise CommandError(error)
    click.echo(described(error), err=True)
    raise SystemExit(1)


def _base(path: str) -> str:
    return path.rstrip("/\\") or path


def _parse_spec(spec: str) -> tuple[str, Version | None]:
    """``NAME`` or ``NAME==VERSION`` (an exact version; ``1.2`` means 1.2.0)."""
    name, separator, version = spec.partition("==")
    name = name.strip()
    if not name:
        _fail(f"no package name in {spec!r}; expected NAME or NAME==VERSION")
    if not separator:
        return name, None
    try:
        return name, parse_version(version.strip())
    except VersionError as exc:
        _fail(exc)


def _print_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def _render(renderable: t.Any) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=200, color_system=None, highlight=False).print(renderable)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines())


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


@click.group("package")
def package() -> None:
    """Build, check and import packages, and manage the catalog."""


def _checked(path: str, libs: t.Sequence[Path], db_url: str | None) -> CheckResult:
    """What ``laguna package check`` finds in the package at ``path``."""
    with package_sources(libs, db_url) as sources:
        return check_path(path, run=import_checkers(*sources))


def _summary(diagnostics: list[Diagnostic]) -> tuple[int, int]:
    errors = sum(1 for d in diagnostics if d.severity == "error")
    return errors, len(diagnostics) - errors


def _accepted(path: str, libs: t.Sequence[Path], db_url: str | None) -> Package:
    """The package at ``path`` when the checks find no error; else every problem
    is printed and the command ends (warnings are printed and let through)."""
    result = _checked(path, libs, db_url)
    base = _base(path)
    for problem in _problems(result, base):
        click.echo(render(problem), err=True)
    if result.failure is not None:
        raise SystemExit(1)
    errors, warnings = _summary(result.diagnostics)
    if result.package is None or errors:
        click.echo(f"{errors} error(s), {warnings} warning(s): package refused", err=True)
        raise SystemExit(1)
    return result.package


def _write_archive(directory: str, output: str) -> list[str]:
    buffer = io.BytesIO()
    try:
        names = build_archive(directory, buffer, exclude=output)
    except LagunaError as exc:
        _fail(exc)
    target = Path(output)
    if not target.parent.is_dir():
        raise OutputError(f"cannot write {output}: folder {str(target.parent)!r} does "
                          "not exist")
    try:
        target.write_bytes(buffer.getvalue())
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None
    return names


@package.command("build")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The zip archive to write.")
@lib_option
@db_url_option
@workdir_option
def build_command(directory: str, output: str, libs: tuple[Path, ...],
                  db_url: str | None) -> None:
    """Zip a package folder after checking it as `laguna package check` does.

    A package with errors is refused; warnings are printed. Required packages
    come from the -l entries, then from the catalog.
    """
    found = _accepted(directory, libs, db_url)
    names = _write_archive(directory, output)
    click.echo(f"built {found.name} {found.version}: {output} ({len(names)} files)")


@package.command("import")
@click.argument("path", type=click.Path(exists=True))
@click.option("--public/--private", default=False, help="Whether every project sees it.")
@click.option("--disabled", is_flag=True, help="Import it disabled.")
@click.option("--category", "categories", multiple=True, help="A category; may be repeated.")
@lib_option
@db_url_option
@workdir_option
def import_command(path: str, public: bool, disabled: bool, categories: tuple[str, ...],
                   libs: tuple[Path, ...], db_url: str | None) -> None:
    """Import a package folder or zip archive into the catalog.

    A MuranoPL package, an assembly or resource descriptor package, or a TOSCA
    CSAR (TOSCA-Metadata/TOSCA.meta, or one root yaml with
    tosca_definitions_version; its name and version are metadata's
    template_name and template_version). The package is checked first as
    `laguna package check` does; one with errors is refused. Required packages
    come from the -l entries, then from the catalog.
    """
    from laguna.frontends.assembly.packaging import is_descriptor_package
    from laguna.frontends.tosca.csar import is_csar_archive
    if is_csar_archive(Path(path)):
        _import_csar(Path(path), public, disabled, categories, db_url)
        return
    if is_descriptor_package(Path(path)):
        _import_descriptor_package(Path(path), public, disabled, categories, db_url)
        return
    found = _accepted(path, libs, db_url)
    archive = None if Path(path).is_dir() else Path(path).read_bytes()
    _store_import(db_url, f"{found.name} {found.version}", lambda session: repo.import_package(
        session, found, enabled=not disabled, is_public=public, categories=categories,
        archive=archive))


def _import_descriptor_package(path: Path, public: bool, disabled: bool,
                               categories: tuple[str, ...], db_url: str | None) -> None:
    """An assembly or resource descriptor package (lmctl layout), checked, then stored."""
    from laguna.frontends.assembly.errors import DescriptorError
    from laguna.frontends.assembly.packaging import read_package
    try:
        found = read_package(path)
    except DescriptorError as error:
        for problem in error.problems:
            click.echo(render(problem, _base(str(path))), err=True)
        click.echo("package refused", err=True)
        raise SystemExit(1) from None
    _store_import(db_url, f"{found.name} {found.version}",
                  lambda session: repo.import_descriptor_package(
                      session, kind=found.kind, name=found.name, version=found.version,
                      description=found.description, archive=found.archive,
                      manifest=found.manifest, enabled=not disabled, is_public=public,
                      categories=categories))


def _import_csar(path: Path, public: bool, disabled: bool, categories: tuple[str, ...],
                 db_url: str | None) -> None:
    """A CSAR (TOSCA), its archive bounded and its template validated (its
    ``catalog:NAME`` imports from this catalog), then stored (docs/TOSCA.md)."""
    import tempfile

    from laguna.frontends.tosca.csar import CatalogCsarError, CatalogImports, check_csar, read_csar
    from laguna.store.source import StoreSource
    database = _database(db_url)
    try:
        with tempfile.TemporaryDirectory(prefix="laguna-csar-imports-") as cache:
            catalog = CatalogImports(StoreSource(database), Path(cache))
            found = read_csar(path, lambda root: check_csar(root, catalog))
    except CatalogCsarError as error:
        for problem in error.problems:
            click.echo(render(problem, _base(str(path))), err=True)
        click.echo(error.message if not error.problems else "CSAR refused", err=True)
        raise SystemExit(1) from None
    finally:
        database.dispose()
    _store_import(db_url, f"{found.name} {found.version}",
                  lambda session: repo.import_tosca_package(
                      session, name=found.name, version=found.version,
                      description=found.description, archive=found.archive,
                      manifest=found.manifest, enabled=not disabled, is_public=public,
                      categories=categories))


def _store_import(db_url: str | None, what: str,
                  add: t.Callable[[t.Any], t.Any]) -> None:
    """Store a checked package with ``add(session)`` (which returns its record) and
    say its id; a store error fails the command."""
    database = _database(db_url)
    try:
        with database.session() as session:
            identifier = add(session).id
    except LagunaError as exc:
        _fail(exc)
    finally:
        database.dispose()
    click.echo(f"imported {what} (id {identifier})")


@package.command("list")
@click.option("--type", "package_type",
              type=click.Choice(["Application", "Library", "Assembly", "Resource", "Tosca"]),
              help="Only packages of this type.")
@click.option("--tag", help="Only packages with this tag.")
@click.option("--search", help="Text to look for in names and descriptions.")
@db_url_option
@workdir_option
@output_option
def list_command(package_type: str | None, tag: str | None, search: str | None,
                 db_url: str | None, output: str) -> None:
    """List the packages in the catalog."""
    database = _readable_database(db_url)
    listed: list[dict[str, t.Any]] = []
    if database is not None:
        try:
            with database.session() as session:
                records = repo.list_packages(session, repo.PackageFilter(
                    type=package_type, tag=tag, search=search))
                listed = [{"name": r.fully_qualified_name, "version": r.version,
                           "type": r.type, "enabled": r.enabled, "public": r.is_public,
                           "id": str(r.id)} for r in records]
        finally:
            database.dispose()

    def table() -> None:
        if not listed:
            click.echo("no packages")
            return
        rendered = Table(box=rich.box.SIMPLE, show_edge=False, pad_edge=False)
        for title in ("Name", "Version", "Type", "Enabled", "Public"):
            rendered.add_column(title)
        for row in listed:
            rendered.add_row(row["name"], row["version"], row["type"], _yes(row["enabled"]),
                             _yes(row["public"]))
        click.echo(_render(rendered))
    emit({"packages": listed}, output, table)


def _describe(record: PackageRecord, versions: list[Version]) -> list[tuple[str, str]]:
    manifest = record.manifest
    requires = manifest.get("Require") or {}
    return [
        ("Name", record.fully_qualified_name),
        ("Display name", record.name),
        ("Version", record.version),
        ("Other versions", ", ".join(str(v) for v in versions if str(v) != record.version)
         or "-"),
        ("Type", record.type),
        ("Format", record.format),
        ("Enabled", _yes(record.enabled)),
        ("Public", _yes(record.is_public)),
        ("Author", record.author or "-"),
        ("Description", (record.description or "-").strip()),
        ("Tags", ", ".join(record.tags) or "-"),
        ("Categories", ", ".join(record.categories) or "-"),
        ("Classes", ", ".join(sorted(manifest.get("Classes") or {})) or "-"),
        ("Requires", ", ".join(f"{name} ({spec or '0'})" for name, spec in requires.items())
         or "-"),
        *([("Node types", ", ".join(manifest.get("Types") or []) or "-"),
           ("Substitutes", manifest.get("Substitutes") or "-"),
           ("Entry", str(manifest.get("Entry-Definitions")))]
          if record.format == repo.TOSCA_FORMAT else []),
        ("ID", str(record.id)),
    ]


@package.command("show")
@click.argument("spec", metavar="NAME[==VERSION]")
@db_url_option
@workdir_option
@output_option
def show_command(spec: str, db_url: str | None, output: str) -> None:
    """Show one package (the highest version unless one is named)."""
    name, version = _parse_spec(spec)
    database = _readable_database(db_url)
    if database is None:
        _fail(PackageNotFoundError(name, None if version is None else str(version)))
    try:
        with database.session() as session:
            record = repo.get_package(session, name, version)
            fields = _describe(record, repo.package_versions(session, name))
    except LagunaError as exc:
        _fail(exc)
    finally:
        database.dispose()

    def table() -> None:
        width = max(len(label) for label, _ in fields) + 1
        for label, value in fields:
            click.echo(f"{label + ':':<{width}} {value}")
    emit({label.lower().replace(" ", "_"): value for label, value in fields}, output, table)


@package.command("delete")
@click.argument("spec", metavar="NAME[==VERSION]")
@click.option("--all-versions", is_flag=True,
              help="Delete every version when NAME has several and none is named.")
@db_url_option
@workdir_option
def delete_command(spec: str, all_versions: bool, db_url: str | None) -> None:
    """Delete a package version from the catalog."""
    name, version = _parse_spec(spec)
    database = _readable_database(db_url)
    if database is None:
        _fail(PackageNotFoundError(name, None if version is None else str(version)))
    try:
        with database.session() as session:
            if version is None and not all_versions:
                versions = repo.package_versions(session, name)
                if len(versions) > 1:
                    listed = ", ".join(str(v) for v in versions)
                    _fail(f"package {name} has {len(versions)} versions ({listed}); "
                          f"name one as {name}==VERSION or pass --all-versions")
            deleted = repo.delete_package(session, name, version)
    except LagunaError as exc:
        _fail(exc)
    finally:
        database.dispose()
    for number in deleted:
        click.echo(f"deleted {name} {number}")


def _problems(result: CheckResult, base: str) -> list[Diagnostic]:
    """Every problem of a check, its files under ``base``; a failure to read the
    package at all names the package as its entity."""
    if result.failure is not None:
        return [dataclasses.replace(p, entity=base) for p in result.failure.as_problems()]
    return [d.under(base) for d in result.diagnostics]


@package.command("check")
@click.argument("path", type=click.Path(exists=True))
@lib_option
@db_url_option
@workdir_option
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object on stdout and nothing else: status, package, "
                   "version and every problem (docs/ERRORS.md).")
def check_command(path: str, libs: tuple[Path, ...], db_url: str | None,
                  as_json: bool) -> None:
    """Check a package folder or archive and print every problem found.

    Besides the manifest and the files, every class is loaded with the engine,
    every YAQL expression parsed and every class name resolved; required
    packages come from the -l entries, then from the catalog. Exit status: 0
    no errors (warnings may be), 1 errors.
    """
    result = _checked(path, libs, db_url)
    base = _base(path)
    problems = _problems(result, base)
    errors, warnings = _summary(problems)
    refused = result.failure is not None or result.package is None or errors > 0
    if as_json:
        package = result.package if result.failure is None else None
        _print_json({"status": "refused" if refused else "ok",
                    "package": package.name if package is not None else None,
                    "version": str(package.version) if package is not None else None,
                    "problems": [p.to_json() for p in problems]})
        raise SystemExit(1 if refused else 0)
    for problem in problems:
        click.echo(render(problem))
    if result.failure is not None:
        raise SystemExit(1)
    if result.package is None or errors:
        click.echo(f"{errors} error(s), {warnings} warning(s)")
        raise SystemExit(1)
    summary = "no problems found" if not warnings else f"{warnings} warning(s)"
    click.echo(f"{result.package.name} {result.package.version}: {summary}")
