"""The runner behind `laguna test`: which methods it runs, `setUp`/`tearDown`
around each, what it reports (console, summary line, exit code, JUnit XML).

The MuranoPL classes log every step they take; the tests read that log.
"""

from __future__ import annotations

import logging
import pathlib
import textwrap
import typing as t
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.testing.runner import TestRunner as PackageRunner

LOGGER = "t.harness.steps"

CLASSES = """\
    Namespaces:
      =: t.harness
      std: io.murano

    --- # a fixture whose test methods its children inherit
    Name: Base
    Extends: std:test.TestFixture
    Properties:
      touched:
        Contract: $.bool()
        Default: false
        Usage: InOut
    Methods:
      step:
        Arguments:
          - name:
              Contract: $.string()
        Body:
          - logger('t.harness.steps').info('{0}.{1}', typeinfo($this).name, $name)
      setUp:
        Body:
          - $.step(setUp)
      tearDown:
        Body:
          - $.step(tearDown)
      testInherited:
        Body:
          - $.step(testInherited)
          - $.assertFalse($.touched, 'each test gets a fresh fixture')
          - $.touched: true
      helperNotATest:
        Body:
          - $.step(helperNotATest)

    --- # not a fixture: its test method runs only in fixtures that extend it
    Name: Mixin
    Methods:
      testFromMixin:
        Body:
          - $this.step(testFromMixin)

    ---
    Name: Child
    Extends: [Base, Mixin]
    Methods:
      testOwn:
        Body:
          - $.step(testOwn)
          - $.assertFalse($.touched, 'each test gets a fresh fixture')
          - $.touched: true
      testFails:
        Body:
          - $.step(testFails)
          - $.assertEqual(1, 2, 'planned failure')
          - $.step(afterFailure)
      testErrors:
        Body:
          - $.step(testErrors)
          - new(NoSuchClass)

    ---
    Name: SetUpFails
    Extends: Base
    Methods:
      setUp:
        Body:
          - $.step(setUp)
          - Throw: SetUpError
            Message: no database
      testNeverRuns:
        Body:
          - $.step(testNeverRuns)

    ---
    Name: TearDownFails
    Extends: Base
    Methods:
      tearDown:
        Body:
          - $.step(tearDown)
          - Throw: TearDownError
            Message: cannot clean up
      testPassesItself:
        Body:
          - $.step(testPassesItself)
      testFailsItself:
        Body:
          - $.step(testFailsItself)
          - $.assertTrue(false, 'own failure')

    --- # not a fixture at all
    Name: Plain
    Methods:
      testIgnored:
        Body:
          - Return: 1
    """

NAMES = ["Base", "Mixin", "Child", "SetUpFails", "TearDownFails", "Plain"]
LINE_OF_FAILING_ASSERT = 54  # `$.assertEqual(1, 2, 'planned failure')` in Classes/Cases.yaml


def write_package(root: pathlib.Path, classes: str = CLASSES,
                  names: list[str] = NAMES) -> pathlib.Path:
    (root / "Classes").mkdir(parents=True)
    (root / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.harness\nClasses:\n"
        + "".join(f"  t.harness.{name}: Cases.yaml\n" for name in names))
    (root / "Classes" / "Cases.yaml").write_text(textwrap.dedent(classes))
    return root


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return write_package(tmp_path_factory.mktemp("harness"))


@pytest.fixture(scope="module")
def runner(package: pathlib.Path) -> PackageRunner:
    return PackageRunner(package)


def run(runner: PackageRunner, caplog: pytest.LogCaptureFixture, name: str) -> tuple[t.Any, list[str]]:
    class_name, method = name.rsplit(".", 1)
    cls = runner.registry.find(f"t.harness.{class_name}", runner.package.package)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        result = runner.run_one(cls, method)
    steps = [r.getMessage().removeprefix("t.harness.") for r in caplog.records
             if r.name == LOGGER]
    return result, steps



def test_selects_every_test_method_own_and_inherited(runner: PackageRunner) -> None:
    selected = sorted(f"{cls.name.removeprefix('t.harness.')}.{m}"
                      for cls, m in runner.select(()))
    assert selected == [
        "Base.testInherited",
        "Child.testErrors", "Child.testFails", "Child.testFromMixin", "Child.testInherited",
        "Child.testOwn",
        "SetUpFails.testInherited", "SetUpFails.testNeverRuns",
        "TearDownFails.testFailsItself", "TearDownFails.testInherited",
        "TearDownFails.testPassesItself",
    ]


def test_selecting_by_class_and_method(runner: PackageRunner) -> None:
    assert [(c.name, m) for c, m in runner.select(["Child.testOwn"])] == [
        ("t.harness.Child", "testOwn")]
    assert sorted(m for _, m in runner.select(["t.harness.Base"])) == ["testInherited"]
    assert runner.select(["Plain"]) == []


@pytest.mark.parametrize("name", ["Base.testInherited", "Child.testInherited",
                                  "Child.testOwn", "Child.testFromMixin"])
def test_set_up_and_tear_down_run_around_a_passing_test(
        runner: PackageRunner, caplog: pytest.LogCaptureFixture, name: str) -> None:
    result, steps = run(runner, caplog, name)
    assert result.passed, result.message
    cls, method = name.split(".")
    assert steps == [f"{cls}.setUp", f"{cls}.{method}", f"{cls}.tearDown"]


def test_each_test_gets_a_fresh_fixture(runner: PackageRunner,
                                        caplog: pytest.LogCaptureFixture) -> None:
    # testOwn and testInherited both set `touched` and assert it was unset
    for name in ["Child.testOwn", "Child.testInherited", "Child.testOwn"]:
        result, _ = run(runner, caplog, name)
        assert result.passed, result.message


def test_tear_down_runs_after_a_failed_assertion(runner: PackageRunner,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    result, steps = run(runner, caplog, "Child.testFails")
    assert not result.passed
    assert result.message == "AssertionError: planned failure: 1 != 2"
    assert steps == ["Child.setUp", "Child.testFails", "Child.tearDown"]
    assert result.trace.splitlines() == [
        "  Traceback (most recent call last):",
        f'    File "Classes/Cases.yaml", line {LINE_OF_FAILING_ASSERT}:9 in method testFails '
        "of type t.harness.Child",
        "        $.assertEqual(1, 2, 'planned failure')",
    ]


def test_tear_down_runs_after_an_error(runner: PackageRunner,
                                       caplog: pytest.LogCaptureFixture) -> None:
    result, steps = run(runner, caplog, "Child.testErrors")
    assert not result.passed
    assert result.message.startswith(
        'murano.dsl.exceptions.NoClassFound: Class "t.harness.NoSuchClass" is not found')
    assert steps == ["Child.setUp", "Child.testErrors", "Child.tearDown"]
    assert "        new(NoSuchClass)" in result.trace.splitlines()


@pytest.mark.parametrize("name", ["SetUpFails.testNeverRuns", "SetUpFails.testInherited"])
def test_failing_set_up_fails_the_test_which_does_not_run(
        runner: PackageRunner, caplog: pytest.LogCaptureFixture, name: str) -> None:
    result, steps = run(runner, caplog, name)
    assert not result.passed
    assert result.message == "t.harness.SetUpError: no database"
    # as in unittest: no test body and no tearDown after a failed setUp
    assert steps == ["SetUpFails.setUp"]
    assert "in method setUp of type t.harness.SetUpFails" in result.trace


def test_failing_tear_down_fails_a_passing_test(runner: PackageRunner,
                                                caplog: pytest.LogCaptureFixture) -> None:
    result, steps = run(runner, caplog, "TearDownFails.testPassesItself")
    assert not result.passed
    assert result.message == "t.harness.TearDownError: cannot clean up"
    assert steps == ["TearDownFails.setUp", "TearDownFails.testPassesItself",
                     "TearDownFails.tearDown"]
    assert "in method tearDown of type t.harness.TearDownFails" in result.trace


def test_failing_tear_down_keeps_the_tests_own_failure_first(
        runner: PackageRunner, caplog: pytest.LogCaptureFixture) -> None:
    result, steps = run(runner, caplog, "TearDownFails.testFailsItself")
    assert (result.passed, result.error) == (False, False)
    assert result.message == "AssertionError: own failure: False is not true"
    assert steps == ["TearDownFails.setUp", "TearDownFails.testFailsItself",
                     "TearDownFails.tearDown"]
    head, _, cleanup = result.trace.partition("\n\n  During tearDown, another error: ")
    assert "in method testFailsItself of type t.harness.TearDownFails" in head
    assert cleanup.startswith("t.harness.TearDownError: cannot clean up\n")
    assert "in method tearDown of type t.harness.TearDownFails" in cleanup


# -- `laguna test`: console, summary line, exit code, JUnit XML -------------

# failed assertions (JUnit <failure>)
FAILING = {
    "t.harness.Child.testFails": "AssertionError: planned failure: 1 != 2",
    "t.harness.TearDownFails.testFailsItself": "AssertionError: own failure: False is not true",
}
# anything else (JUnit <error>)
ERRORS = {
    "t.harness.Child.testErrors": 'murano.dsl.exceptions.NoClassFound: Class '
                                  '"t.harness.NoSuchClass" is not found',
    "t.harness.SetUpFails.testInherited": "t.harness.SetUpError: no database",
    "t.harness.SetUpFails.testNeverRuns": "t.harness.SetUpError: no database",
    "t.harness.TearDownFails.testInherited": "t.harness.TearDownError: cannot clean up",
    "t.harness.TearDownFails.testPassesItself": "t.harness.TearDownError: cannot clean up",
}
PASSING = ["t.harness.Base.testInherited", "t.harness.Child.testFromMixin",
           "t.harness.Child.testInherited", "t.harness.Child.testOwn"]


@pytest.fixture(scope="module")
def cli_run(package: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> t.Any:
    report = tmp_path_factory.mktemp("report") / "junit.xml"
    result = CliRunner().invoke(cli, ["test", str(package), "--junit-xml", str(report)])
    return result, ET.parse(report).getroot()


def test_console_reports_every_test_and_the_summary(cli_run: t.Any) -> None:
    result, _ = cli_run
    lines = result.output.splitlines()
    status = {line.split()[1]: line.split()[0] for line in lines
              if line.startswith(("PASS ", "FAIL "))}
    # the console says FAIL for failures and errors alike; JUnit tells them apart
    assert status == {**{name: "FAIL" for name in [*FAILING, *ERRORS]},
                      **{name: "PASS" for name in PASSING}}
    for name, message in [*FAILING.items(), *ERRORS.items()]:
        at = next(i for i, line in enumerate(lines) if line.startswith(f"FAIL {name} ("))
        assert lines[at + 1].startswith(f"  {message}")
        assert lines[at + 2] == "  Traceback (most recent call last):"
    assert lines[-1] == "4 passed, 7 failed"
    assert result.exit_code == 1


def test_junit_report_holds_every_test(cli_run: t.Any) -> None:
    _, suite = cli_run
    assert suite.tag == "testsuite"
    assert suite.get("name") == "t.harness"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("11", "2", "5")
    cases = {f"{c.get('classname')}.{c.get('name')}": c for c in suite.findall("testcase")}
    assert sorted(cases) == sorted([*FAILING, *ERRORS, *PASSING])
    for name in PASSING:
        assert list(cases[name]) == [], name


@pytest.mark.parametrize(("name", "element"), [*((n, "failure") for n in sorted(FAILING)),
                                               *((n, "error") for n in sorted(ERRORS))])
def test_junit_report_holds_each_failure_and_error_with_message_and_trace(
        cli_run: t.Any, name: str, element: str) -> None:
    result, suite = cli_run
    case = next(c for c in suite.findall("testcase")
                if f"{c.get('classname')}.{c.get('name')}" == name)
    assert [e.tag for e in case] == [element]
    failures = case.findall(element)
    assert failures[0].get("message").startswith({**FAILING, **ERRORS}[name])
    trace = failures[0].text
    assert trace.startswith("  Traceback (most recent call last):\n    File \"Classes/Cases.yaml\"")
    # the same trace the console printed
    assert trace in result.output


def test_junit_failure_trace_names_the_failing_line(cli_run: t.Any) -> None:
    _, suite = cli_run
    case = next(c for c in suite.findall("testcase") if c.get("name") == "testFails")
    assert (f'File "Classes/Cases.yaml", line {LINE_OF_FAILING_ASSERT}:9 in method testFails'
            in case.find("failure").text)


def test_all_passing_exits_zero(package: pathlib.Path, tmp_path: pathlib.Path) -> None:
    report = tmp_path / "junit.xml"
    result = CliRunner().invoke(cli, ["test", str(package), "Child.testOwn", "Base",
                                      "--junit-xml", str(report)])
    assert result.output.splitlines()[-1] == "2 passed, 0 failed"
    assert result.exit_code == 0
    suite = ET.parse(report).getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("2", "0")
    assert suite.findall("testcase/failure") == []


def test_one_failure_exits_one(package: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["test", str(package), "Child.testOwn", "Child.testFails"])
    assert result.output.splitlines()[-1] == "1 passed, 1 failed"
    assert result.exit_code == 1


def test_a_name_selecting_no_test_is_an_error(package: pathlib.Path) -> None:
    result = CliRunner().invoke(cli, ["test", str(package), "Child.testMissing"])
    assert result.output.splitlines() == [
        "error[LAG-E1303]: no test matches 'Child.testMissing' (name a test CLASS or "
        "CLASS.METHOD, the class in full or by its last part) [no_test_matches]"]
    assert result.exit_code == 2


def test_method_without_assertion_passes(tmp_path: pathlib.Path) -> None:
    """The original engine's rule, kept: a test that asserts nothing passes
    (so conformance tests must assert what they are about)."""
    package = write_package(tmp_path, """\
        Namespaces:
          =: t.harness
          std: io.murano
        Name: Empty
        Extends: std:test.TestFixture
        Methods:
          testNothing:
            Body:
        """, ["Empty"])
    result = CliRunner().invoke(cli, ["test", str(package)])
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"
    assert result.exit_code == 0
