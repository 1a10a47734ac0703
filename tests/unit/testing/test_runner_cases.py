"""The test runner behind `laguna test`, called from Python: which methods of
which classes are tests, how a selection pattern picks them, what a passing,
failing and broken test reports, and the JUnit XML of the results."""

from __future__ import annotations

import pathlib
import textwrap
import xml.etree.ElementTree as ET

import pytest

from laguna.testing import runner as laguna_runner
from laguna.testing.runner import junit_xml, library_packages

PackageRunner = laguna_runner.TestRunner
Result = laguna_runner.TestResult

MANIFEST = """\
    Format: 1.4
    Type: Library
    FullName: t.pkg
    Classes:
      t.pkg.Cases: Cases.yaml
      t.pkg.More: More.yaml
      t.pkg.Plain: Plain.yaml
      t.pkg.Base: Base.yaml
      Bare: Bare.yaml
    """

CASES = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: Cases
    Extends: Base
    Properties:
      log:
        Contract: [$.string()]
        Usage: InOut
        Default: []
    Methods:
      setUp:
        Body:
          - $.log: $.log + list(setUp)
      tearDown:
        Body:
          - If: $.log.len() > 1
            Then:
              - Throw: TornDown
                Message: tearDown saw $.log
      testPasses:
        Body:
          - $.assertEqual([setUp], $.log)
      testFails:
        Body:
          - $.assertEqual(1, 2, 'numbers differ')
      testBroken:
        Body:
          - $.log: $.log + list(broken)
      helper:
        Body:
          - Return: 1
    """

BASE = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: Base
    Extends: std:test.TestFixture
    Methods:
      testInherited:
        Body:
          - Return: 1
    """

MORE = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: More
    Extends: std:test.TestFixture
    Methods:
      testPasses:
        Body:
          - Return: 1
      testZ:
        Body:
          - Return: 1
    """

BARE = """\
    Namespaces:
      std: io.murano
    Name: Bare
    Extends: std:test.TestFixture
    Methods:
      testBare:
        Body:
          - Return: 1
    """

PLAIN = """\
    Namespaces:
      =: t.pkg
    Name: Plain
    Methods:
      testNotAFixture:
        Body:
          - Return: 1
    """


@pytest.fixture
def package(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "pkg"
    (root / "Classes").mkdir(parents=True)
    (root / "manifest.yaml").write_text(textwrap.dedent(MANIFEST))
    for name, text in (("Cases", CASES), ("More", MORE), ("Plain", PLAIN), ("Base", BASE),
                       ("Bare", BARE)):
        (root / "Classes" / f"{name}.yaml").write_text(textwrap.dedent(text))
    return root


def names(cases) -> list[str]:
    return [f"{cls.name}.{method}" for cls, method in cases]


def test_fixtures_are_the_package_classes_extending_test_fixture(package):
    runner = PackageRunner(package)
    assert sorted(cls.name for cls in runner.fixtures()) == ["Bare", "t.pkg.Base",
                                                            "t.pkg.Cases", "t.pkg.More"]


def test_every_test_method_of_each_fixture_once_in_name_order(package):
    cases = names(PackageRunner(package).select(()))
    assert sorted(cases) == sorted([
        "t.pkg.Base.testInherited",
        "t.pkg.Cases.testBroken", "t.pkg.Cases.testFails", "t.pkg.Cases.testInherited",
        "t.pkg.Cases.testPasses",
        "t.pkg.More.testPasses", "t.pkg.More.testZ", "Bare.testBare"])
    cases_of = [c for c in cases if c.startswith("t.pkg.Cases.")]
    assert cases_of == sorted(cases_of)


@pytest.mark.parametrize(("pattern", "expected"), [
    ("t.pkg.More", ["t.pkg.More.testPasses", "t.pkg.More.testZ"]),
    ("More", ["t.pkg.More.testPasses", "t.pkg.More.testZ"]),
    ("More.testZ", ["t.pkg.More.testZ"]),
    ("t.pkg.More.testZ", ["t.pkg.More.testZ"]),
    ("Cases.testPasses", ["t.pkg.Cases.testPasses"]),
    ("pkg.More", []),
    ("More.testY", []),
    ("Other.testZ", []),
    ("testZ", []),
    ("Bare.testBare", ["Bare.testBare"]),
    ("Bare", ["Bare.testBare"]),
])
def test_a_pattern_names_a_class_or_a_method_in_full_or_by_the_last_part(package, pattern,
                                                                          expected):
    assert names(PackageRunner(package).select((pattern,))) == expected


def test_several_patterns_select_what_any_of_them_selects(package):
    assert names(PackageRunner(package).select(("More.testZ", "Cases.testFails"))) == [
        "t.pkg.Cases.testFails", "t.pkg.More.testZ"] or names(
        PackageRunner(package).select(("More.testZ", "Cases.testFails"))) == [
        "t.pkg.More.testZ", "t.pkg.Cases.testFails"]


def run(package, name: str) -> laguna_runner.TestResult:
    runner = PackageRunner(package)
    cls_name, method = name.rsplit(".", 1)
    return runner.run_one(runner.registry.find(cls_name, runner.package.package), method)


def test_a_passing_test_runs_set_up_first(package):
    result = run(package, "t.pkg.Cases.testPasses")
    assert (result.passed, result.message, result.trace) == (True, "", "")
    assert result.name == "t.pkg.Cases.testPasses"
    assert 0 < result.seconds < 60


def test_a_failing_assertion_reports_its_names_message_and_stack(package):
    result = run(package, "t.pkg.Cases.testFails")
    assert (result.class_name, result.method, result.passed) == (
        "t.pkg.Cases", "testFails", False)
    assert 0 < result.seconds < 60
    assert result.message == "AssertionError: numbers differ: 1 != 2"
    assert result.trace == (
        "  Traceback (most recent call last):\n"
        '    File "Classes/Cases.yaml", line 26:9 in method testFails of type t.pkg.Cases\n'
        "        $.assertEqual(1, 2, 'numbers differ')")
    assert result.seconds > 0


def test_tear_down_runs_after_the_test_and_its_error_fails_it(package):
    result = run(package, "t.pkg.Cases.testBroken")
    assert result.passed is False
    assert result.message == "t.pkg.TornDown: tearDown saw $.log"


def test_an_error_outside_muranopl_code_fails_the_test_with_its_text(package):
    (package / "Classes" / "More.yaml").write_text(textwrap.dedent(MORE) + textwrap.dedent("""\
        Properties:
          needed:
            Contract: $.string().notNull()
        """))
    result = run(package, "t.pkg.More.testZ")
    assert (result.class_name, result.method, result.passed) == ("t.pkg.More", "testZ", False)
    assert 0 < result.seconds < 60
    assert result.message == ("property t.pkg.More.needed: null value violates notNull() "
                              "contract (contract: $.string().notNull())")
    assert result.trace == ""


def test_class_configs_default_to_the_package_folder(package, tmp_path):
    assert PackageRunner(package).class_configs is None
    (package / "ClassConfigs").mkdir()
    assert PackageRunner(package).class_configs.path == package / "ClassConfigs"
    other = tmp_path / "configs"
    other.mkdir()
    assert PackageRunner(package, class_configs=other).class_configs.path == other


def test_library_packages_of_a_folder_of_packages_or_a_package(package, tmp_path):
    assert [p.package.name for p in library_packages(package)] == ["t.pkg"]
    (tmp_path / "notapackage").mkdir()
    (tmp_path / "afile").write_text("x")
    assert [p.package.name for p in library_packages(tmp_path)] == ["t.pkg"]


def test_junit_xml_lists_every_result_with_failures():
    results = [Result("t.A", "testOk", True, 0.25),
               Result("t.A", "testBad", False, 0.5, "X: boom", "  trace"),
               Result("t.B", "testNoTrace", False, 1.0, "Y: bad")]
    root = ET.fromstring(junit_xml(results, "suite"))
    assert root.tag == "testsuite"
    assert root.attrib == {"name": "suite", "tests": "3", "failures": "2", "errors": "0",
                           "time": "1.750000"}
    cases = root.findall("testcase")
    assert [c.attrib for c in cases] == [
        {"classname": "t.A", "name": "testOk", "time": "0.250000"},
        {"classname": "t.A", "name": "testBad", "time": "0.500000"},
        {"classname": "t.B", "name": "testNoTrace", "time": "1.000000"}]
    assert cases[0].find("failure") is None
    assert cases[1].find("failure").attrib == {"message": "X: boom"}
    assert cases[1].find("failure").text == "  trace"
    assert cases[2].find("failure").text == "Y: bad"


def test_junit_xml_is_indented_utf8_with_a_declaration():
    text = junit_xml([Result("t.A", "testÄ", True, 0.0)], "s").decode("utf-8")
    assert text.startswith("<?xml version='1.0' encoding='utf-8'?>\n<testsuite")
    assert '\n  <testcase classname="t.A" name="testÄ"' in text


def test_an_exception_with_several_names_lists_them(package):
    (package / "Classes" / "More.yaml").write_text(textwrap.dedent(MORE).replace(
        "testZ:\n    Body:\n      - Return: 1",
        "testZ:\n    Body:\n      - Throw: [One, Two]\n        Message: both"))
    assert run(package, "t.pkg.More.testZ").message == "t.pkg.One, t.pkg.Two: both"


def test_tests_read_the_class_configs_of_the_package(package):
    (package / "Classes" / "More.yaml").write_text(textwrap.dedent(MORE) + textwrap.dedent("""\
        Properties:
          where:
            Usage: Config
            Contract: $.string()
            Default: nowhere
        """).replace("testZ:\n    Body:\n      - Return: 1",
                     "testZ:\n    Body:\n      - $.assertEqual(configured, $.where)"))
    (package / "ClassConfigs").mkdir()
    (package / "ClassConfigs" / "t.pkg.More-0.json").write_text('{"where": "configured"}')
    result = run(package, "t.pkg.More.testZ")
    assert (result.passed, result.message) == (True, "")
