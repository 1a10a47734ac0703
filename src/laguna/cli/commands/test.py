"""`laguna test`: run the MuranoPL test fixtures of a package."""

from __future__ import annotations

import math
import json
import os
import pathlib
import sys
import typing as t

import click
import yaml

from laguna.cli.errors import NO_TEST_MATCHES, CommandError
from laguna.cli.testprogress import TestProgress
from laguna.cli.shared import workdir_option
from laguna.cli.sources import catalog_sources, db_url_option, warn_skipped
from laguna.cli.shared import stdout_console
from laguna.config import Config
from laguna.corelib.services import RecordingServices
from laguna.errors import LagunaError
from laguna.lang.functions import Host
from laguna.lang.functions.host import Decryptor, MappingDecryptor, NoDecryptor
from laguna.source import Diagnostic, render
from laguna.testing.runner import PACKAGE_CLASS_CONFIGS, TestRunner, junit_xml
from laguna.yaql.engine import Limits

#: the engine settings' group of the sandbox's limits (docs/SECURITY.md)
LIMITS_GROUP = "limits"
#: the default wall time of one call of a test (Limits' default is a deployment's)
TEST_TIMEOUT = 60.0


class Seconds(click.FloatRange):
    """A positive, finite number of seconds: `nan` passes every comparison
    (a FloatRange lets it through) and would turn the time limit off, as
    `inf` would."""

    name = "seconds"

    def convert(self, value: t.Any, param: click.Parameter | None,
                ctx: click.Context | None) -> t.Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value} is not a finite number of seconds.", param, ctx)
        return seconds


def _report_path(ctx: click.Context, param: click.Parameter,
                 value: pathlib.Path | None) -> pathlib.Path | None:
    """The --junit-xml file, refused before any test runs when its folder
    does not exist (writing it after the run would end in a traceback)."""
    if value is not None and not value.parent.is_dir():
        raise click.BadParameter(f"cannot write {str(value)!r}: the folder "
                                 f"{str(value.parent)!r} does not exist", ctx, param)
    return value


@click.command("test")
@click.argument("package_dir", type=click.Path(exists=True, file_okay=False,
                                               path_type=pathlib.Path))
@click.argument("tests", nargs=-1)
@click.option("-l", "--lib", "libs", multiple=True,
              type=click.Path(exists=True, path_type=pathlib.Path),
              help="A folder of packages, or a package (folder or zip), the tested one "
                   "may require; looked in before the catalog. Repeatable.")
@db_url_option
@workdir_option
@click.option("--class-configs", "class_configs",
              type=click.Path(exists=True, file_okay=False, path_type=pathlib.Path),
              help="The folder of class configuration files (values of `Usage: Config` "
                   "properties). Default: the package's ClassConfigs/ folder if it has "
                   "one, else $LAGUNA_CLASS_CONFIGS or ~/.local/share/laguna/class-configs.")
@click.option("--engine-settings", "engine_settings",
              type=click.Path(exists=True, dir_okay=False, path_type=pathlib.Path),
              help="A YAML/JSON file of the settings config() gives the core library: "
                   "a mapping of groups to mappings of settings. Default: "
                   "$LAGUNA_ENGINE_SETTINGS, else none.")
@click.option("--secrets", "secrets",
              type=click.Path(exists=True, dir_okay=False, path_type=pathlib.Path),
              help="A YAML/JSON mapping of references to secrets, what decryptData() "
                   "answers. Default: no key manager (decryptData() fails).")
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Run with recording deployment services: stacks and agent plans are "
                   "recorded and answered with invented outputs instead of failing.")
@click.option("--junit-xml", "junit", type=click.Path(dir_okay=False, path_type=pathlib.Path),
              callback=_report_path, help="Write the results as JUnit XML to this file.")
@click.option("--timeout", "timeout", type=Seconds(min=0, min_open=True),
              default=TEST_TIMEOUT, show_default=True, metavar="SECONDS",
              help="The wall time each call (setUp, a test method, tearDown) may take; "
                   "the other limits are the `limits` group of the engine settings "
                   "(docs/SECURITY.md).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object at the end (the counts and every test's result) "
                   "and nothing else on stdout.")
def test(package_dir: pathlib.Path, tests: tuple[str, ...], libs: tuple[pathlib.Path, ...],
         db_url: str | None, class_configs: pathlib.Path | None,
         engine_settings: pathlib.Path | None, secrets: pathlib.Path | None,
         junit: pathlib.Path | None, dry_run: bool = False,
         timeout: float = TEST_TIMEOUT, as_json: bool = False) -> None:
    """Run every test method of every TestFixture class in PACKAGE_DIR.

    TESTS narrows the run to CLASS or CLASS.METHOD names (full or short).
    Required packages come from the -l entries, then from the catalog.
    """
    try:
        catalog = click.get_current_context().with_resource(catalog_sources(db_url))
        config = Config.from_environ(os.environ)
        if class_configs is None and not (package_dir / PACKAGE_CLASS_CONFIGS).is_dir():
            class_configs = config.class_configs
        host = _host(engine_settings or config.engine_settings, secrets)
        runner = TestRunner(package_dir, libs, class_configs=class_configs, sources=catalog,
                            host=host, services=RecordingServices if dry_run else None,
                            limits=_limits(host, timeout))
        warn_skipped(runner.libraries)
        cases = runner.select(tests)
    except click.ClickException:
        raise       # a command-line error (CommandError is a LagunaError too): exit 1
    except LagunaError as error:
        _refuse([p.under(str(package_dir)) for p in error.as_problems()], as_json)
    unmatched = runner.unmatched(tests, cases)
    if unmatched:
        _refuse([Diagnostic(None, NO_TEST_MATCHES, f"no test matches {name!r} (name a test "
                            "CLASS or CLASS.METHOD, the class in full or by its last part)")
                 for name in unmatched], as_json)
    progress = TestProgress(stdout_console())
    results = []
    for cls, method in cases:
        if as_json:
            results.append(runner.run_one(cls, method))
            continue
        with progress.running(f"{cls.name}.{method}"):
            result = runner.run_one(cls, method)
        results.append(result)
        status = "PASS" if result.passed else "FAIL"
        click.echo(f"{status} {result.name} ({result.seconds:.3f}s)")
        if not result.passed:
            click.echo(f"  {result.message}")
            if result.trace:
                click.echo(result.trace)
    if junit is not None:
        try:
            junit.write_bytes(junit_xml(results, runner.package.package.name))
        except OSError as exc:
            click.echo(f"Error: cannot write the JUnit XML report {str(junit)!r}: "
                       f"{exc.strerror or exc}", err=True)
            sys.exit(2)
    passed = sum(1 for r in results if r.passed)
    failed = len(results) - passed
    if as_json:
        click.echo(json.dumps({
            "package": runner.package.package.name, "passed": passed, "failed": failed,
            "problems": [],
            "tests": [{"name": r.name, "class": r.class_name, "method": r.method,
                       "passed": r.passed, "error": r.error, "seconds": round(r.seconds, 6),
                       "message": r.message or None, "trace": r.trace or None}
                      for r in results]}, indent=2, ensure_ascii=False))
    else:
        click.echo(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 and results else 1)


def _refuse(problems: list[Diagnostic], as_json: bool) -> t.NoReturn:
    """Nothing ran: every problem (with --json the object of a run with no tests and
    its ``problems``, docs/ERRORS.md); exit status 2."""
    if as_json:
        click.echo(json.dumps({"package": None, "passed": 0, "failed": 0, "tests": [],
                               "problems": [p.to_json() for p in problems]},
                              indent=2, ensure_ascii=False))
    else:
        for problem in problems:
            click.echo(render(problem), err=True)
    sys.exit(2)


def _limits(host: Host, timeout: float) -> Limits:
    """The sandbox's limits: the defaults, changed by the engine settings'
    `limits` group, and the wall time of a call from --timeout."""
    settings = host.settings.get(LIMITS_GROUP) or {}
    if not isinstance(settings, dict):
        raise click.ClickException(f"the engine settings' {LIMITS_GROUP} group is not a mapping")
    try:
        return Limits.from_settings({**settings, "execution_seconds": timeout})
    except (TypeError, ValueError) as exc:
        raise click.ClickException(f"engine settings, {LIMITS_GROUP}: {exc}") from None


def _mapping_file(path: pathlib.Path, what: str) -> dict[str, t.Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CommandError(f"{what} {path} cannot be read: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CommandError(f"{what} {path} is not a mapping")
    return data


def _host(settings: pathlib.Path | None, secrets: pathlib.Path | None) -> Host:
    """What config() and decryptData() of the tested code answer."""
    decryptor: Decryptor = NoDecryptor()
    if secrets is not None:
        decryptor = MappingDecryptor({str(k): str(v) for k, v in
                                      _mapping_file(secrets, "secrets file").items()})
    values = _mapping_file(settings, "engine settings file") if settings is not None else {}
    return Host(settings=values, decryptor=decryptor)
