"""Run-time errors placed where the fault is: an error of a contract itself
(not a violation) names the contract's place, not only the caller's."""

from __future__ import annotations

import pathlib
import textwrap

from click.testing import CliRunner

from laguna.cli.main import cli

MANIFEST = """\
    Format: 1.4
    Type: Library
    FullName: t.pkg
    Classes:
      t.pkg.Cases: Cases.yaml
      t.pkg.Holder: Holder.yaml
      t.pkg.Taker: Holder.yaml
    """
HOLDER = """\
    Namespaces: {=: t.pkg}
    Name: Holder
    Properties:
      peer:
        Contract: $.class(Missing)
        Default: null
    --- # a class whose method's contract calls a function that does not exist
    Name: Taker
    Methods:
      take:
        Arguments:
          - x:
              Contract: $.nosuchcontract()
        Body:
          - Return: $x
    """
CASES = """\
    Namespaces: {=: t.pkg, std: io.murano}
    Name: Cases
    Extends: std:test.TestFixture
    Methods:
      testMissingClassInContract:
        Body:
          - new(Holder)
      testUnknownContractFunction:
        Body:
          - new(Taker).take(1)
    """


def run(tmp_path: pathlib.Path, test: str) -> list[str]:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True, exist_ok=True)
    (package / "manifest.yaml").write_text(textwrap.dedent(MANIFEST))
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent(CASES))
    (package / "Classes" / "Holder.yaml").write_text(textwrap.dedent(HOLDER))
    result = CliRunner().invoke(cli, ["test", str(package), f"Cases.{test}"])
    return [line for line in result.output.splitlines()[1:-1]]


def test_a_contract_naming_a_missing_class_points_at_the_contract(tmp_path):
    lines = run(tmp_path, "testMissingClassInContract")
    assert lines[0] == ('  murano.dsl.exceptions.NoClassFound: Class "t.pkg.Missing" is not '
                        "found in t.pkg/0.0.0, io.murano/0.2.0")
    assert lines[-1] == "    Contract declared at Classes/Holder.yaml:5:15"


def test_an_unknown_contract_function_points_at_the_contract(tmp_path):
    lines = run(tmp_path, "testUnknownContractFunction")
    assert lines[0] == ('  yaql.language.exceptions.NoMethodRegisteredException: Unknown method '
                        '"nosuchcontract" for receiver 1')
    assert lines[-1] == "    Contract declared at Classes/Holder.yaml:13:21"
