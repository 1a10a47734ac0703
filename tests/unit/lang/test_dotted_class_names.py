"""``new(t.Missing)`` and ``$.class(t.Missing)``: yaql reads an unquoted
dotted name as a property read. `laguna package check` says so before the code
runs, and at run time it is a MuranoPL error that says what happened (in a
method body and in a contract), never a Python traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from laguna.cli.main import cli

MANIFEST = """\
Format: MuranoPL/1.0
Type: Application
FullName: t.P
Name: P
Classes:
  t.P: P.yaml
"""
CLASS = """\
Namespaces:
  =: t
Name: P
Extends: io.murano.test.TestFixture
Methods:
  testNew:
    Body:
      - $x: new(t.Missing)
  testContract:
    Arguments:
      - a:
          Contract: $.class(a.b.Missing)
          Default: 1
    Body:
      - Return: $a
"""
def message(name: str) -> str:
    return (f'Unknown property "{name}": `.{name}` reads a property, and the value before '
            'it has none of that name (a class name with dots is written ns:Name or in quotes)')


def package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "Classes").mkdir(parents=True)
    (root / "manifest.yaml").write_text(MANIFEST)
    (root / "Classes" / "P.yaml").write_text(CLASS)
    return root


def test_check_names_the_unquoted_dotted_class_names(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["package", "check", str(package(tmp_path)),
                                      "--db-url", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-3:] == [
        f"{tmp_path}/pkg/Classes/P.yaml:8:13: error[LAG-E0705]: t.Missing in "
        "'new(t.Missing)' is not a class name: yaql reads it as the property Missing of "
        "'t'; write 't.Missing' in quotes or ns:Name [unknown_class]",
        f"{tmp_path}/pkg/Classes/P.yaml:12:21: error[LAG-E0705]: a.b.Missing in "
        "'$.class(a.b.Missing)' is not a class name: yaql reads it as the property Missing "
        "of 'a.b'; write 'a.b.Missing' in quotes or ns:Name [unknown_class]",
        "2 error(s), 0 warning(s)"]


def test_at_run_time_both_fail_as_muranopl_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["test", str(package(tmp_path)),
                                      "--db-url", str(tmp_path / "c.sqlite")])
    assert result.exit_code == 1, result.output
    assert "Traceback (most recent call last):\n  File \"" not in result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL t.P.testContract (")
    # a.b.Missing fails at its first dot
    assert lines[1] == ("  yaql.language.exceptions.NoFunctionRegisteredException: "
                        + message("b"))
    failed_new = lines.index(next(line for line in lines if line.startswith("FAIL t.P.testNew")))
    assert lines[failed_new + 1:failed_new + 5] == [
        "  yaql.language.exceptions.NoFunctionRegisteredException: " + message("Missing"),
        "  Traceback (most recent call last):",
        '    File "Classes/P.yaml", line 8:9 in method testNew of type t.P',
        "        $x: new(t.Missing)"]
    assert lines[-1] == "0 passed, 2 failed"
