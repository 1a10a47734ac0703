"""`laguna test`: run the MuranoPL test fixtures of a package."""

from __future__ import annotations

import pathlib
import sys

import click

from laguna.errors import LagunaError
from laguna.testing.runner import TestRunner, junit_xml


@click.command("test")
@click.argument("package_dir", type=click.Path(exists=True, file_okay=False,
                                               path_type=pathlib.Path))
@click.argument("tests", nargs=-1)
@click.option("-l", "--lib", "libs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
              help="A folder of packages (or a package) the tested one may use; repeatable.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, path_type=pathlib.Path),
              help="Write the results as JUnit XML to this file.")
def test(package_dir: pathlib.Path, tests: tuple[str, ...], libs: tuple[pathlib.Path, ...],
         junit: pathlib.Path | None) -> None:
    """Run every test method of every TestFixture class in PACKAGE_DIR.

    TESTS narrows the run to CLASS or CLASS.METHOD names (full or short).
    """
    try:
        runner = TestRunner(package_dir, libs)
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
