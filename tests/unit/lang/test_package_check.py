"""`laguna package check` (the MuranoPL checker): classes that cannot be loaded
and meta that cannot be attached are listed among the problems, with positions."""

import pathlib

from laguna.packages.package import load_package
from laguna.testing.packages import library_source, muranopl_checker

CONFORMANCE = pathlib.Path(__file__).resolve().parents[2] / "conformance" / "muranopl"
PACKAGES = CONFORMANCE / "packages"


def diagnostics(name: str) -> list[str]:
    checker = muranopl_checker(library_source([CONFORMANCE / "libs"]))
    found = sorted(checker(load_package(PACKAGES / name)), key=lambda d: d.sort_key())
    return [f"{d.span.source}:{d.span.line}:{d.span.col} {d.severity} {d.code} {d.message}"
            for d in found]


def test_classes_that_do_not_load_are_listed():
    found = [d for d in diagnostics("errornames")
             if "Classes/Orphan" in d or "Classes/Conflict" in d or "Classes/BadPrefix" in d]
    assert found == [
        "Classes/BadPrefix.yaml:6:10 error LAG-E0243 Extends: Invalid type name \"=:Other\"",
        "Classes/Conflict.yaml:8:1 error LAG-E0701 class conformance.errornames.Conflict "
        "inherits conformance.versioning.z.D from versions 1.2.0 and 1.3.0 of package "
        "conformance.versioning.z, and no version of conformance.versioning.z satisfies every "
        "requirement: conformance.versioning.x 1.0.0 requires '1.2.0' (==1.2.0); "
        "conformance.versioning.y 1.0.0 requires '1.3.0' (==1.3.0)",
        "Classes/Orphan.yaml:6:1 error LAG-E0242 class conformance.errornames.Orphan: "
        "Extends names class conformance.errornames.Missing, which is not found",
    ]


def test_equals_prefix_in_expressions_is_listed():
    found = [d for d in diagnostics("errornames") if "LAG-E0320" in d]
    assert found == [
        "Classes/NameTests.yaml:76:13 error LAG-E0320 Invalid type name \"=:Other\" in "
        "\"new('=:Other')\"",
        "Classes/Taker.yaml:11:21 error LAG-E0320 Invalid type name \"=:Other\" in "
        "\"$.class('=:Other')\"",
    ]


def test_meta_rules_are_checked_without_running_code():
    found = [d for d in diagnostics("meta") if " LAG-E080" in d or "NoSuchMeta" in d]
    assert found == [
        "Classes/Broken.yaml:12:7 error LAG-E0803 meta class conformance.meta.Feature cannot "
        "be attached to property conformance.meta.Broken.typeOnly: it applies to Type",
        "Classes/Broken.yaml:21:11 error LAG-E0803 meta class conformance.meta.PackageNote "
        "cannot be attached to method conformance.meta.Broken::packageOnly: it applies to "
        "Package",
        "Classes/Broken.yaml:28:17 error LAG-E0803 meta class conformance.meta.Note cannot be "
        "attached to argument value of method conformance.meta.Broken::withArgument: it "
        "applies to Method, Property",
        # the second Label, where the Cardinality One meta is attached again
        "Classes/Broken.yaml:36:5 error LAG-E0804 meta class conformance.meta.Label has "
        "Cardinality One but is attached more than once to class conformance.meta.TwiceLabelled",
        "Classes/Broken.yaml:42:3 error LAG-E0803 meta class conformance.meta.ArgHint cannot be "
        "attached to class conformance.meta.ArgHintOnClass: it applies to Argument",
        "Classes/Broken.yaml:47:7 error LAG-E0802 class conformance.meta.NotMeta cannot be "
        "attached to class conformance.meta.PlainAsMeta as meta: it is not declared with "
        "Usage: Meta",
        "Classes/Broken.yaml:57:7 error LAG-E0704 Class \"conformance.meta.NoSuchMeta\" is not "
        "found in conformance.meta/0.0.0, io.murano/0.2.0",
        "Classes/Broken.yaml:63:11 error LAG-E0803 meta class conformance.meta.PackageNote "
        "cannot be attached to method conformance.meta.MethodNoted::packageOnly: it applies "
        "to Package",
        "Classes/Broken.yaml:73:17 error LAG-E0803 meta class conformance.meta.Note cannot be "
        "attached to argument value of method conformance.meta.ArgumentNoted::withArgument: "
        "it applies to Method, Property",
        # since meta is checked when a class loads (issue 23), code naming such a
        # class is told that it does not load
        "Classes/ErrorTests.yaml:56:17 warning LAG-E0804 class :TwiceLabelled in "
        "'typeinfo(:TwiceLabelled)' does not load: meta class conformance.meta.Label has "
        "Cardinality One but is attached more than once to class "
        "conformance.meta.TwiceLabelled",
        "Classes/ErrorTests.yaml:78:17 warning LAG-E0704 class conformance.meta.UnknownMeta in "
        "\"new('conformance.meta.UnknownMeta')\" does not load: Class "
        "\"conformance.meta.NoSuchMeta\" is not found in conformance.meta/0.0.0, "
        "io.murano/0.2.0",
    ]


def test_exception_names_in_catch_and_throw_are_not_class_names():
    # `With: py:ValueError` names an exception through a prefix for the empty
    # namespace; it is no class and must not be reported as an unknown one
    assert diagnostics("exceptions") == []
    assert [d for d in diagnostics("errornames") if "ValueError" in d] == []


def check_class(body: str) -> list[str]:
    """The diagnostics of a package holding one class file, ``Classes/A.yaml``."""
    import textwrap

    from laguna.packages.package import MemoryTree, package_from_tree
    tree = MemoryTree({
        "manifest.yaml": b"Format: 1.4\nType: Library\nFullName: t.pkg\nClasses:\n  t.A: A.yaml\n",
        "Classes/A.yaml": textwrap.dedent(body).encode()})
    found = sorted(muranopl_checker()(package_from_tree(tree, "memory")),
                   key=lambda d: d.sort_key())
    return [f"{d.span}: {d.code} {d.message}" for d in found]


def test_an_unknown_contract_function_is_listed_at_the_contract():
    assert check_class("""\
        Name: t.A
        Properties:
          size:
            Contract: $.int().nosuchcontract()
          name:
            Contract: $.string().check($.len() > 0)
        Methods:
          m:
            Arguments:
              - x:
                  Contract: [$.nosuch()]
        """) == [
        "Classes/A.yaml:4:15: LAG-E0245 unknown contract function nosuchcontract() in "
        "'$.int().nosuchcontract()'; contracts use bool, check, class, int, notNull, notOwned, "
        "owned, string, template",
        "Classes/A.yaml:11:22: LAG-E0245 unknown contract function nosuch() in '$.nosuch()'; "
        "contracts use bool, check, class, int, notNull, notOwned, owned, string, template",
    ]


def test_a_contract_naming_a_missing_class_is_listed_at_the_contract():
    assert check_class("""\
        Namespaces: {=: t}
        Name: A
        Properties:
          peer:
            Contract: $.class(Missing).notNull()
        """) == [
        "Classes/A.yaml:5:15: LAG-E0705 class Missing in '$.class(Missing).notNull()' does not "
        "resolve: Class \"t.Missing\" is not found in t.pkg/0.0.0, io.murano/0.2.0",
    ]


def test_catch_with_and_as_must_be_names():
    assert check_class("""\
        Name: t.A
        Methods:
          m:
            Body:
              - Try:
                  - $x: 1
                Catch:
                  - With: $.foo
                    As: [1]
                  - With: [py:ValueError, 3]
                    As: e
                  - With: murano.dsl.exceptions.NoClassFound
                    As: $e
        """) == [
        "Classes/A.yaml:8:19: LAG-E0244 Catch With: '$.foo' is not an exception name; expected "
        "a name such as ns:Name or a list of names",
        "Classes/A.yaml:9:17: LAG-E0244 Catch As: [1] is not a variable name; expected a name "
        "such as e",
        "Classes/A.yaml:10:13: LAG-E0244 Catch With: 3 is not an exception name; expected a "
        "name such as ns:Name or a list of names",
    ]


def test_every_problem_of_a_class_file_is_listed_in_one_run():
    found = check_class("""\
        Name: t.A
        Foo: 1
        Bar: 2
        Properties:
          a:
            Contract: $.int()
            Whatever: 1
          b:
            Usage: Nonsense
            Contract: $.string()
        Methods:
          m:
            Bogus: 1
          n:
            Scope: Everywhere
          o:
            Body:
              - Iff: true
        """)
    assert [line.split(" ", 2)[:2] for line in found] == [
        ["Classes/A.yaml:2:1:", "LAG-E0203"], ["Classes/A.yaml:3:1:", "LAG-E0203"],
        ["Classes/A.yaml:7:5:", "LAG-E0203"], ["Classes/A.yaml:9:5:", "LAG-E0209"],
        ["Classes/A.yaml:13:5:", "LAG-E0203"], ["Classes/A.yaml:15:5:", "LAG-E0232"],
        ["Classes/A.yaml:18:9:", "LAG-E0221"],
    ]
    assert found[1] == (
        "Classes/A.yaml:3:1: LAG-E0203 unknown key 'Bar' in class t.A; expected one of Applies, "
        "Cardinality, Extends, Import, Inherited, Meta, Methods, Name, Namespaces, Properties, "
        "Usage, Workflow")


def test_every_instruction_of_a_method_body_is_checked(tmp_path):
    # the body goes on past its first problem: each instruction is reported
    root = tmp_path / "pkg"
    (root / "Classes").mkdir(parents=True)
    (root / "manifest.yaml").write_text(
        "Format: MuranoPL/1.0\nType: Application\nFullName: t.R\nName: R\n"
        "Classes:\n  t.R: R.yaml\n")
    (root / "Classes" / "R.yaml").write_text(
        "Name: t.R\n"
        "Methods:\n"
        "  m:\n"
        "    Body:\n"
        "      - Unknown: 1\n"
        "      - $fine: 1\n"
        "      - If: true\n"
        "        Then:\n"
        "          - Return: $.a ++\n"
        "          - Nothing: 2\n"
        "      - If: true\n"
        "        Bogus: 2\n")
    checker = muranopl_checker(library_source([CONFORMANCE / "libs"]))
    found = sorted(checker(load_package(root)), key=lambda d: d.sort_key())
    assert [(d.span.line, d.span.col, d.code) for d in found] == [
        (5, 9, "LAG-E0221"), (9, 21, "LAG-E0223"), (10, 13, "LAG-E0221"), (12, 9, "LAG-E0211")]
