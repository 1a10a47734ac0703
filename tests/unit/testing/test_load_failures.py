"""`laguna test` with classes that cannot be loaded: the rest of the package runs."""

import pathlib
import textwrap

from click.testing import CliRunner

from laguna.cli.main import cli

GOOD = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: Good
    Extends: std:test.TestFixture
    Methods:
      testPasses:
        Body:
          - $.assertEqual(1, 1)
      testUsesBroken:
        Body:
          - new(Helper)
    """

# a fixture whose mixin is missing: its tests are read from the file
BROKEN_FIXTURE = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: BrokenFixture
    Extends: [std:test.TestFixture, Mixin]
    Methods:
      testB:
        Body:
          - $.assertEqual(1, 1)
      testA:
        Body:
      helper:
        Body:
    """

HELPER = """\
    Namespaces:
      =: t.pkg
    Name: Helper
    Extends: Gone
    """


def write(tmp_path: pathlib.Path, classes: dict[str, str]) -> pathlib.Path:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    listing = "".join(f"  t.pkg.{name}: {name}.yaml\n" for name in classes)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.pkg\nClasses:\n" + listing)
    for name, body in classes.items():
        (package / "Classes" / f"{name}.yaml").write_text(textwrap.dedent(body))
    return package


def lines(output: str) -> list[str]:
    return [line.split(" (")[0] if line.startswith(("PASS", "FAIL")) else line
            for line in output.splitlines()]


def test_broken_helper_fails_only_where_used(tmp_path):
    package = write(tmp_path, {"Good": GOOD, "Helper": HELPER})
    result = CliRunner().invoke(cli, ["test", str(package)])
    assert result.exit_code == 1
    out = lines(result.output)
    assert out[0] == "PASS t.pkg.Good.testPasses"
    assert out[1] == "FAIL t.pkg.Good.testUsesBroken"
    assert out[2] == ("  murano.dsl.exceptions.NoClassFound: Classes/Helper.yaml:4:1: "
                      "error[LAG-E0242]: class t.pkg.Helper: Extends names class t.pkg.Gone, "
                      "which is not found")
    assert out[-1] == "1 passed, 1 failed"


def test_tests_of_a_broken_fixture_are_reported_failed(tmp_path):
    package = write(tmp_path, {"BrokenFixture": BROKEN_FIXTURE, "Good": GOOD, "Helper": HELPER})
    result = CliRunner().invoke(cli, ["test", str(package), "BrokenFixture", "Good.testPasses"])
    out = lines(result.output)
    message = ("  murano.dsl.exceptions.NoClassFound: class t.pkg.BrokenFixture: Extends names "
               "class t.pkg.Mixin, which is not found")
    trace = ("  class t.pkg.BrokenFixture cannot be loaded: Classes/BrokenFixture.yaml:5:1: "
             "error[LAG-E0242]: class t.pkg.BrokenFixture: Extends names class t.pkg.Mixin, "
             "which is not found")
    assert out == ["FAIL t.pkg.BrokenFixture.testA", message, trace,
                   "FAIL t.pkg.BrokenFixture.testB", message, trace,
                   "PASS t.pkg.Good.testPasses",
                   "1 passed, 2 failed"]
    assert result.exit_code == 1


def test_unreadable_class_file_is_one_failed_case(tmp_path):
    package = write(tmp_path, {"Good": GOOD, "Bad": "Name: [unclosed\n"})
    result = CliRunner().invoke(cli, ["test", str(package), "Bad", "Good.testPasses"])
    out = lines(result.output)
    assert out[0] == "FAIL t.pkg.Bad.<load>"
    assert out[1].startswith("  laguna.yamlio.loader.YamlError: invalid YAML: ")
    assert out[2].startswith("  class t.pkg.Bad cannot be loaded: Classes/Bad.yaml:2:1: "
                             "error[LAG-E0101]: invalid YAML: ")
    assert out[3:] == ["PASS t.pkg.Good.testPasses", "1 passed, 1 failed"]
