"""`laguna test`: run the MuranoPL test fixtures of a package."""

from __future__ import annotations

import os
import pathlib
import sys

import click

from laguna.cli.sources import catalog_sources, db_url_option, warn_skipped
from laguna.config import Config
from laguna.errors import LagunaError
from laguna.testing.runner import PACKAGE_CLASS_CONFIGS, TestRunner, junit_xml


@click.command("test")
@click.argument("package_dir", type=click.Path(exists=True, file_okay=False,
                                               path_type=pathlib.Path))
@click.argument("tests", nargs=-1)
@click.option("-l", "--lib", "libs", multiple=True,
              type=click.Path(exists=True, path_type=pathlib.Path),
              help="A folder of packages, or a package (folder or zip), the tested one "
                   "may require; looked in before the catalog. Repeatable.")
@db_url_option
@click.option("--class-configs", "class_configs",
              type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
              help="The folder of class configuration files (values of `Usage: Config` "
                   "properties). Default: the package's ClassConfigs/ folder if it has "
                   "one, else $LAGUNA_CLASS_CONFIGS or ~/.local/share/laguna/class-configs.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, path_type=pathlib.Path),
              help="Write the results as JUnit XML to this file.")
def test(package_dir: pathlib.Path, tests: tuple[str, ...], libs: tuple[pathlib.Path, ...],
         db_url: str | None, class_configs: pathlib.Path | None,
         junit: pathlib.Path | None) -> None:
    """Run every test method of every TestFixture class in PACKAGE_DIR.

    TESTS narrows the run to CLASS or CLASS.METHOD names (full or short).
    Required packages come from the -l entries, then from the catalog.
    """
    try:
        catalog = click.get_current_context().with_resource(catalog_sources(db_url))
        if class_configs is None and not (package_dir / PACKAGE_CLASS_CONFIGS).is_dir():
            class_configs = Config.from_environ(os.environ).class_configs
        runner = TestRunner(package_dir, libs, class_configs=class_configs, sources=catalog)
        warn_skipped(runner.libraries)
        cases = runner.select(tests)
    except LagunaError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    results = []
    for cls, method in cases:
        result = runner.run_one(cls, method)
        results.append(result)
        status = "PASS" if result.passed else "FAIL"
        click.echo(f"{status} {result.name} ({result.seconds:.3f}s)")
        if not result.passed:
            click.echo(f"  {result.message}")
            if result.trace:
                click.echo(result.trace)
    if junit is not None:
        junit.write_bytes(junit_xml(results, runner.package.package.name))
    passed = sum(1 for r in results if r.passed)
    failed = len(results) - passed
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 and results else 1)
