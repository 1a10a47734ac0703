"""`laguna test` reports each kind of error with its exact message and place:
an unknown class, a contract violated, a wrong argument, a missing required
property (the runner's part of issue 2's negative tests)."""

from __future__ import annotations

import pathlib
import textwrap

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli

CLASSES = """\
    Namespaces:
      =: t.neg
      std: io.murano

    --- # a class with a required property
    Name: Server
    Properties:
      name:
        Contract: $.string().notNull()
      port:
        Contract: $.int().check($ > 0)
        Default: 80
    Methods:
      connect:
        Arguments:
          - timeout:
              Contract: $.int()
        Body:
          - Return: $timeout

    --- # every test fails in its own way
    Name: Cases
    Extends: std:test.TestFixture
    Methods:
      testUnknownClass:
        Body:
          - new(NoSuchClass)
      testBadContract:
        Body:
          - new(Server, name => web, port => -1)
      testWrongArgument:
        Body:
          - $s: new(Server, name => web)
          - $s.connect(retries => 3)
      testMissingRequiredProperty:
        Body:
          - $.load({'?' => {type => 't.neg.Server', id => s1}, port => 8080})
    """


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    package = tmp_path_factory.mktemp("neg")
    (package / "Classes").mkdir()
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.neg\n"
        "Classes:\n  t.neg.Cases: Cases.yaml\n  t.neg.Server: Cases.yaml\n")
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent(CLASSES))
    result = CliRunner().invoke(cli, ["test", str(package)])
    assert result.exit_code == 1
    return result.output.splitlines()


def _report(lines: list[str], test: str) -> list[str]:
    """The lines printed for one failed test, up to the next test's line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"FAIL t.neg.Cases.{test} ("))
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("FAIL ", "PASS "))), len(lines) - 1)
    return lines[start + 1:end]


def test_summary(output: list[str]) -> None:
    assert output[-1] == "0 passed, 4 failed"


def test_unknown_class(output: list[str]) -> None:
    report = _report(output, "testUnknownClass")
    # the message goes on to list the packages that were searched
    assert report[0].startswith(
        '  murano.dsl.exceptions.NoClassFound: Class "t.neg.NoSuchClass" is not found')
    assert report[1:] == [
        "  Traceback (most recent call last):",
        '    File "Classes/Cases.yaml", line 27:9 in method testUnknownClass of type t.neg.Cases',
        "        new(NoSuchClass)",
    ]


def test_bad_contract(output: list[str]) -> None:
    assert _report(output, "testBadContract") == [
        "  murano.dsl.exceptions.ContractViolationException: property t.neg.Server.port: "
        "Value -1 doesn't match predicate (contract: $.int().check($ > 0))",
        "  Traceback (most recent call last):",
        '    File "Classes/Cases.yaml", line 30:9 in method testBadContract of type t.neg.Cases',
        "        new(Server, name => web, port => -1)",
        "    Contract declared at Classes/Cases.yaml:10:3",
    ]


def test_wrong_argument(output: list[str]) -> None:
    assert _report(output, "testWrongArgument") == [
        "  yaql.language.exceptions.NoMatchingMethodException: "
        "Method connect has no argument named retries",
        "  Traceback (most recent call last):",
        '    File "Classes/Cases.yaml", line 34:9 in method testWrongArgument of type t.neg.Cases',
        "        $s.connect(retries => 3)",
    ]


def test_missing_required_property(output: list[str]) -> None:
    assert _report(output, "testMissingRequiredProperty") == [
        "  murano.dsl.exceptions.ContractViolationException: property t.neg.Server.name: "
        "null value violates notNull() contract (contract: $.string().notNull())",
        "  Traceback (most recent call last):",
        '    File "Classes/Cases.yaml", line 37:9 in method testMissingRequiredProperty '
        "of type t.neg.Cases",
        "        $.load({'?' => {type => 't.neg.Server', id => s1}, port => 8080})",
        "    Contract declared at Classes/Cases.yaml:8:3",
    ]
