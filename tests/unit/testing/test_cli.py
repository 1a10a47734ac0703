import pathlib
import textwrap
import xml.etree.ElementTree as ET

from click.testing import CliRunner

from laguna.cli.main import cli

ROOT = pathlib.Path(__file__).resolve().parents[3]


def write_package(tmp_path: pathlib.Path, body: str) -> pathlib.Path:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(textwrap.dedent("""\
        Format: 1.4
        Type: Library
        FullName: t.pkg
        Classes:
          t.pkg.Cases: Cases.yaml
        """))
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent(body))
    return package


CASES = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: Cases
    Extends: std:test.TestFixture
    Properties:
      log:
        Contract: [$.string()]
        Usage: InOut
        Default: []
    Methods:
      setUp:
        Body:
          - $.log: $.log + list(setUp)
      testPasses:
        Body:
          - $.assertEqual([setUp], $.log)
      testFails:
        Body:
          - $.helper()
      helper:
        Body:
          - $.assertEqual(1, 2, 'numbers differ')
    """


def test_example_package_passes():
    result = CliRunner().invoke(cli, ["test", str(ROOT / "examples" / "hello")])
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"


def test_failure_prints_message_and_murano_stack(tmp_path):
    package = write_package(tmp_path, CASES)
    result = CliRunner().invoke(cli, ["test", str(package)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    assert lines[0].startswith("FAIL t.pkg.Cases.testFails (")
    assert lines[1] == "  AssertionError: numbers differ: 1 != 2"
    assert 'File "Classes/Cases.yaml", line 20:9 in method testFails of type t.pkg.Cases' in \
        result.output
    assert 'File "Classes/Cases.yaml", line 23:9 in method helper of type t.pkg.Cases' in \
        result.output
    assert any(line.startswith("PASS t.pkg.Cases.testPasses (") for line in lines)


def test_selecting_one_method_and_junit_xml(tmp_path):
    package = write_package(tmp_path, CASES)
    report = tmp_path / "report.xml"
    result = CliRunner().invoke(cli, ["test", str(package), "Cases.testPasses",
                                      "--junit-xml", str(report)])
    assert result.exit_code == 0
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"
    suite = ET.parse(report).getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "1"
    case = suite.find("testcase")
    assert case.get("classname") == "t.pkg.Cases" and case.get("name") == "testPasses"
    assert float(case.get("time")) >= 0


def test_broken_class_file_reports_file_and_line(tmp_path):
    package = write_package(tmp_path, "Name: Cases\nMethods: [oops\n")
    result = CliRunner().invoke(cli, ["test", str(package)])
    # the class is reported as one failed case; other classes would still run
    assert result.exit_code == 1
    assert result.output.startswith("FAIL t.pkg.Cases.<load> ")
    assert "Classes/Cases.yaml:3:1: error[LAG-E0101]: invalid YAML" in result.output


def test_a_filter_that_matches_nothing_is_named(tmp_path):
    package = write_package(tmp_path, CASES)
    result = CliRunner().invoke(cli, ["test", str(package), "Cases.testPasses", "Cases.testNope",
                                      "testPasses"])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"error[LAG-E1303]: no test matches {name!r} (name a test CLASS or CLASS.METHOD, the "
        "class in full or by its last part) [no_test_matches]"
        for name in ("Cases.testNope", "testPasses")]


def test_a_package_that_cannot_be_read_is_reported_once_in_the_common_shape(tmp_path):
    package = write_package(tmp_path, CASES)
    (package / "manifest.yaml").write_text("Format: 7\nType: Library\nFullName: t.pkg\n")
    result = CliRunner().invoke(cli, ["test", str(package)])
    assert (result.exit_code, result.output.splitlines()) == (2, [
        f"{package}/manifest.yaml:1:1: error[LAG-E0511]: unsupported Format 7; expected one "
        "of 1.0, 1.1, 1.2, 1.3, 1.4 (optionally written MuranoPL/<version>) "
        "[unsupported_format]"])


def test_a_link_in_the_tested_package_is_reported_at_the_link(tmp_path):
    package = write_package(tmp_path, CASES)
    (package / "Classes" / "x.yaml").symlink_to("/etc/passwd")
    result = CliRunner().invoke(cli, ["test", str(package)])
    # no doubled "error: error[...]" prefix, the file named once
    assert (result.exit_code, result.output) == (2, (
        f"{package}/Classes/x.yaml:1:1: error[LAG-E0552]: a symbolic link; packages cannot "
        "contain links [archive_symlink]\n"))


def test_json_prints_one_object_with_every_result(tmp_path):
    import json

    package = write_package(tmp_path, CASES)
    result = CliRunner().invoke(cli, ["test", str(package), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (data["package"], data["passed"], data["failed"]) == ("t.pkg", 1, 1)
    by_method = {t["method"]: t for t in data["tests"]}
    assert sorted(by_method) == ["testFails", "testPasses"]
    failed = by_method["testFails"]
    assert (failed["name"], failed["class"], failed["passed"], failed["error"],
            failed["message"]) == ("t.pkg.Cases.testFails", "t.pkg.Cases", False, False,
                                   "AssertionError: numbers differ: 1 != 2")
    assert 'line 23:9 in method helper of type t.pkg.Cases' in failed["trace"]
    passed = by_method["testPasses"]
    assert (passed["passed"], passed["message"], passed["trace"]) == (True, None, None)
