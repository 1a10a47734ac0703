"""`laguna test --timeout` and the engine settings' `limits` group: the
sandbox's limits of one run."""

from __future__ import annotations

import pathlib
import textwrap

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.yaql.engine import Limits

CASES = """\
    Namespaces:
      =: t.lim
      std: io.murano
    Name: Cases
    Extends: std:test.TestFixture
    Methods:
      testEndless:
        Body:
          - While: 1 = 1
            Do:
              - $x: 1
      testRange:
        Body:
          - Return: range(50).toList()
    """


def write_package(tmp_path: pathlib.Path) -> pathlib.Path:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.lim\nClasses:\n  t.lim.Cases: Cases.yaml\n")
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent(CASES))
    return package


def test_timeout_ends_an_endless_loop(tmp_path):
    package = write_package(tmp_path)
    result = CliRunner().invoke(cli, ["test", str(package), "Cases.testEndless",
                                      "--timeout", "0.2"])
    lines = result.output.splitlines()
    assert lines[0].startswith("FAIL t.lim.Cases.testEndless (")
    assert lines[1] == ("  LimitExceededError: execution_seconds limit of 0.2 s exceeded at "
                        "Classes/Cases.yaml:11")
    assert result.exit_code == 1


def test_timeout_must_be_positive(tmp_path):
    package = write_package(tmp_path)
    result = CliRunner().invoke(cli, ["test", str(package), "--timeout", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--timeout': 0.0 is not in the range x>0." in result.output


def test_engine_settings_limits_group_sets_the_limits(tmp_path):
    package = write_package(tmp_path)
    settings = tmp_path / "s.yaml"
    settings.write_text("limits: {iterators: 10}\n")
    result = CliRunner().invoke(cli, ["test", str(package), "Cases.testRange",
                                      "--engine-settings", str(settings)])
    lines = result.output.splitlines()
    assert lines[1] == ("  LimitExceededError: iterators limit of 10 items exceeded by a "
                        "collection of more than 10 items at Classes/Cases.yaml:14")
    assert result.exit_code == 1


def test_engine_settings_limits_group_is_checked(tmp_path):
    package = write_package(tmp_path)
    settings = tmp_path / "s.yaml"
    settings.write_text("limits: {memory: 10}\n")
    result = CliRunner().invoke(cli, ["test", str(package), "--engine-settings", str(settings)])
    assert result.exit_code == 1
    assert result.output == ("Error: engine settings, limits: unknown limit memory; known "
                             "limits: call_depth, execution_seconds, integer_bits, iterators, "
                             "memory_quota, regex_length, regex_size, run_memory\n")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1"])
def test_timeout_must_be_a_finite_positive_number(tmp_path, value):
    # nan passed the range check and turned the time limit off (issue 21)
    package = write_package(tmp_path)
    result = CliRunner().invoke(cli, ["test", str(package), "--timeout", value])
    assert result.exit_code == 2
    message = (f"{value} is not a finite number of seconds." if value in ("nan", "inf")
               else f"{float(value)} is not in the range x>0.")
    assert f"Error: Invalid value for '--timeout': {message}" in result.output
    assert "Traceback" not in result.output


def test_junit_xml_into_a_missing_folder_is_refused_before_the_run(tmp_path):
    package = write_package(tmp_path)
    report = tmp_path / "missing" / "x.xml"
    result = CliRunner().invoke(cli, ["test", str(package), "Cases.testRange",
                                      "--junit-xml", str(report)])
    assert result.exit_code == 2
    assert (f"Error: Invalid value for '--junit-xml': cannot write '{report}': the folder "
            f"'{report.parent}' does not exist") in result.output
    assert "PASS" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_limits_refuse_values_that_are_not_finite(value):
    with pytest.raises(ValueError) as info:
        Limits(execution_seconds=value)
    assert str(info.value) == f"limit execution_seconds must be a positive number, not {value!r}"
