"""Manifest validation: every problem, with its position and code."""

from __future__ import annotations

import textwrap

import pytest

from laguna.packages.errors import PackageFormatError
from laguna.packages.manifest import (
    FORMAT_1_0,
    FORMAT_1_1,
    FORMAT_1_3,
    FORMAT_1_4,
    FormatVersion,
    PackageType,
    load_manifest,
    validate_manifest,
)
from laguna.packages.versions import Version, parse_requirement
from laguna.source import Diagnostic, Span

MINIMAL = "Type: Library\nFullName: com.example.Lib\n"


def manifest_text(extra: str = "") -> str:
    return MINIMAL + textwrap.dedent(extra)


def problems(text: str) -> list[str]:
    manifest, diagnostics = validate_manifest(text)
    return [str(d) for d in diagnostics]


def test_minimal_manifest_defaults() -> None:
    manifest = load_manifest(MINIMAL)
    assert manifest.format == FORMAT_1_0
    assert manifest.type is PackageType.LIBRARY
    assert manifest.full_name == "com.example.Lib"
    assert manifest.name == "com.example.Lib"
    assert manifest.version == Version("0.0.0")
    assert manifest.tags == ()
    assert manifest.classes == {}
    assert manifest.require == {}
    assert manifest.requirements == {"io.murano": parse_requirement("0")}
    assert manifest.ui is None and manifest.logo is None and manifest.meta is None


@pytest.mark.parametrize(("written", "expected"), [
    ("1.0", FormatVersion(1, 0)), ("1.3", FORMAT_1_3), ("'1.4'", FORMAT_1_4),
    ("MuranoPL/1.4", FORMAT_1_4), ("MuranoPL/1.1", FORMAT_1_1), ("", FORMAT_1_0),
])
def test_format_values(written: str, expected: FormatVersion) -> None:
    assert load_manifest(manifest_text(f"Format: {written}\n")).format == expected


@pytest.mark.parametrize("written", ["2.0", "1", "MuranoPL/1.5", "Heat.HOT/1.0", "'1.3.0'", "[1]"])
def test_format_rejects(written: str) -> None:
    assert problems(f"Format: {written}\n" + MINIMAL)[0].startswith(
        "manifest.yaml:1:")
    manifest, diagnostics = validate_manifest(f"Format: {written}\n" + MINIMAL)
    assert manifest is None
    assert [d.code for d in diagnostics] == ["LAG-E0511"]
    assert diagnostics[0].message.startswith("unsupported Format ")
    assert diagnostics[0].message.endswith(
        "; expected one of 1.0, 1.1, 1.2, 1.3, 1.4 (optionally written MuranoPL/<version>)")


def test_format_is_ordered_for_the_engine() -> None:
    assert FORMAT_1_0 < FORMAT_1_1 < FORMAT_1_3 < FORMAT_1_4
    assert FORMAT_1_1.legacy_yaql and not FormatVersion(1, 2).legacy_yaql
    assert FORMAT_1_3.type_objects and not FormatVersion(1, 2).type_objects
    assert FORMAT_1_4.method_scope and not FORMAT_1_3.method_scope
    assert FORMAT_1_4.name == "MuranoPL/1.4" and str(FORMAT_1_4) == "1.4"


def test_missing_required_fields_are_all_reported() -> None:
    manifest, diagnostics = validate_manifest("Name: x\n")
    assert manifest is None
    assert diagnostics == [
        Diagnostic(Span("manifest.yaml", 1, 1, 2, 1), "LAG-E0512", "'Type' is required"),
        Diagnostic(Span("manifest.yaml", 1, 1, 2, 1), "LAG-E0512", "'FullName' is required"),
    ]


def test_every_problem_is_reported_with_its_position() -> None:
    text = textwrap.dedent("""\
        Format: 2.0
        Type: App
        FullName: com..example
        Version: one
        Tags: web
        Classes:
          com.example.App: ../App.yaml
        Require:
          com.example.Lib: ~1.2
        Requires: {}
        """)
    assert problems(text) == [
        "manifest.yaml:1:1: error[LAG-E0511]: unsupported Format 2.0; expected one of "
        "1.0, 1.1, 1.2, 1.3, 1.4 (optionally written MuranoPL/<version>)",
        "manifest.yaml:2:7: error[LAG-E0513]: 'Type' must be 'Application' or 'Library', "
        "not 'App'",
        "manifest.yaml:3:11: error[LAG-E0514]: 'FullName' must be a dotted name like "
        "com.example.App, not 'com..example'",
        "manifest.yaml:4:10: error[LAG-E0501]: invalid version 'one': expected SemVer like 1.2.3",
        "manifest.yaml:5:7: error[LAG-E0515]: 'Tags' must be a list of strings, not 'web'",
        "manifest.yaml:7:20: error[LAG-E0516]: file of class 'com.example.App' must be a path "
        "inside the package, not '../App.yaml'",
        "manifest.yaml:9:20: error[LAG-E0502]: requirement of 'com.example.Lib': invalid "
        "version requirement '~1.2': '~1.2' is not an operator (==, !=, >=, <=, >, <) "
        "followed by a version",
        "manifest.yaml:10:1: warning[LAG-W0519]: unknown manifest field 'Requires' is ignored; "
        "known fields: Format, Type, FullName, Name, Version, Description, Author, Tags, "
        "Classes, Require, UI, Logo, Supplier, Meta",
    ]


def test_load_manifest_raises_one_error_listing_all() -> None:
    with pytest.raises(PackageFormatError) as info:
        load_manifest("Type: Thing\nFullName: .x\n")
    error = info.value
    assert error.code == "LAG-E0510"
    assert str(error) == (
        "manifest.yaml has 2 error(s)\n"
        "manifest.yaml:1:7: error[LAG-E0513]: 'Type' must be 'Application' or 'Library', "
        "not 'Thing'\n"
        "manifest.yaml:2:11: error[LAG-E0514]: 'FullName' must be a dotted name like "
        "com.example.App, not '.x'")


@pytest.mark.parametrize(("text", "message"), [
    ("", "the manifest is empty; expected one mapping of fields"),
    ("- a\n", "the manifest is not a mapping; expected one mapping of fields"),
    ("a: 1\n---\nb: 2\n", "the manifest has several documents; expected one mapping of fields"),
])
def test_manifest_must_be_one_mapping(text: str, message: str) -> None:
    manifest, diagnostics = validate_manifest(text)
    assert manifest is None
    assert [(d.code, d.message, d.span.line) for d in diagnostics] == [("LAG-E0510", message, 1)]


def test_invalid_yaml_is_a_diagnostic() -> None:
    _, diagnostics = validate_manifest("Type: [a\n")
    assert [str(d) for d in diagnostics] == [
        "manifest.yaml:2:1: error[LAG-E0517]: invalid YAML: expected ',' or ']', "
        "but got '<stream end>'"]


def test_full_fields_are_read() -> None:
    manifest = load_manifest(manifest_text("""\
        Format: 1.4
        Name: Lib
        Version: 1.2.3-rc.1+b7
        Description: A library
        Author: Someone
        Tags: [a, 2016]
        Classes:
          com.example.Lib: Lib.yaml
          com.example.Other: sub/Other.yaml
        Require:
          com.example.Dep: 1.2
          com.example.Any:
          com.example.Num: 2
          io.murano: ">=0.2"
        UI: form.yaml
        Logo: images/logo.png
        Supplier:
          Name: ACME
          Logo: acme.png
        Meta:
          - a: [1, 2]
        """))
    assert manifest.name == "Lib"
    assert manifest.version == Version("1.2.3-rc.1+b7")
    assert manifest.description == "A library"
    assert manifest.author == "Someone"
    assert manifest.tags == ("a", "2016")
    assert manifest.classes == {"com.example.Lib": "Lib.yaml",
                                "com.example.Other": "sub/Other.yaml"}
    assert {k: str(v) for k, v in manifest.requirements.items()} == {
        "com.example.Dep": ">=1.2.0,<1.3.0-0",
        "com.example.Any": ">=0.0.0,<1.0.0-0",   # empty: 0.x (issue 23)
        "com.example.Num": ">=2.0.0,<3.0.0-0",
        "io.murano": ">=0.2.0",
    }
    assert manifest.ui == "form.yaml" and manifest.logo == "images/logo.png"
    assert manifest.supplier == {"Name": "ACME", "Logo": "acme.png"}
    assert type(manifest.supplier["Name"]) is str
    assert manifest.meta == [{"a": [1, 2]}]
    assert manifest.span("Classes", "com.example.Other") == Span("manifest.yaml", 11, 3, 11, 20)


def test_core_library_does_not_require_itself() -> None:
    manifest = load_manifest("Type: Library\nFullName: io.murano\n")
    assert manifest.requirements == {}


def test_version_number_is_padded() -> None:
    assert load_manifest(manifest_text("Version: 1.2\n")).version == Version("1.2.0")


def test_wrong_kinds_are_reported() -> None:
    assert problems(manifest_text("""\
        Description: [x]
        Tags: [a, {b: 1}]
        Classes: [x]
        Require:
          com.example.X: [1]
        Supplier: text
        UI: /etc/passwd
        Version: [1]
        """)) == [
        "manifest.yaml:3:14: error[LAG-E0515]: 'Description' must be a string, not a list",
        "manifest.yaml:4:11: error[LAG-E0515]: 'Tags' item 1 must be a string, not a mapping",
        "manifest.yaml:5:10: error[LAG-E0515]: 'Classes' must be a mapping, not a list",
        "manifest.yaml:7:18: error[LAG-E0502]: requirement of 'com.example.X' must be a "
        "version specification, not a list",
        "manifest.yaml:8:11: error[LAG-E0515]: 'Supplier' must be a mapping, not 'text'",
        "manifest.yaml:9:5: error[LAG-E0515]: 'UI' must be a path inside the package, "
        "not '/etc/passwd'",
        "manifest.yaml:10:10: error[LAG-E0515]: 'Version' must be a version string like "
        "1.2.3, not a list",
    ]


def test_bad_class_and_package_names() -> None:
    assert problems(manifest_text("""\
        Classes:
          bad name: X.yaml
          com.example.Y: ""
        Require:
          "not valid!": 1
        """)) == [
        "manifest.yaml:4:3: error[LAG-E0516]: class name 'bad name' in 'Classes' is not a "
        "dotted name",
        "manifest.yaml:5:18: error[LAG-E0516]: file of class 'com.example.Y' must be a file "
        "name, not ''",
        "manifest.yaml:7:3: error[LAG-E0514]: required package 'not valid!' is not a dotted name",
    ]


def test_to_data_is_normalised() -> None:
    data = load_manifest(manifest_text("Format: 1.3\nRequire:\n  a.b: 1\n")).to_data()
    assert data == {
        "Format": "MuranoPL/1.3", "Type": "Library", "FullName": "com.example.Lib",
        "Name": "com.example.Lib", "Version": "0.0.0", "Description": None, "Author": None,
        "Tags": [], "Classes": {}, "Require": {"a.b": "1"}, "UI": None, "Logo": None,
        "Supplier": {}, "Meta": None,
    }


def test_numbers_keep_the_digits_they_were_written_with() -> None:
    # YAML reads 1.10 as the float 1.1; versions must not lose the zero
    manifest = load_manifest(manifest_text("""\
        Version: 1.10
        Require:
          com.example.Dep: 1.10
          com.example.Two: 2
        """))
    assert manifest.version == Version("1.10.0")
    assert {k: str(v) for k, v in manifest.requirements.items()} == {
        "com.example.Dep": ">=1.10.0,<1.11.0-0",
        "com.example.Two": ">=2.0.0,<3.0.0-0",
        "io.murano": ">=0.0.0,<1.0.0-0",   # implicit: 0.x (issue 23)
    }
