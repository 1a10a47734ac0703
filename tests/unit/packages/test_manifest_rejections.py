"""Every manifest field refuses every wrong kind of value, with its code and
message, on the field's line (one row per value; the others fields valid)."""

from __future__ import annotations

import pytest

from laguna.packages.manifest import FIELDS, validate_manifest

FORMATS = "expected one of 1.0, 1.1, 1.2, 1.3, 1.4 (optionally written MuranoPL/<version>)"

# (the field's line, "CODE: message")
ROWS: list[tuple[str, str]] = [
    ("Format: 2.0", f"LAG-E0511: unsupported Format 2.0; {FORMATS}"),
    ("Format: [1]", f"LAG-E0511: unsupported Format a list; {FORMATS}"),
    ("Format: true", f"LAG-E0511: unsupported Format True; {FORMATS}"),
    ("Type: App", "LAG-E0513: 'Type' must be 'Application' or 'Library', not 'App'"),
    ("Type: [Library]", "LAG-E0513: 'Type' must be 'Application' or 'Library', not a list"),
    ("Type: null", "LAG-E0513: 'Type' must be 'Application' or 'Library', not None"),
    ("FullName: com..x",
     "LAG-E0514: 'FullName' must be a dotted name like com.example.App, not 'com..x'"),
    ("FullName: 1", "LAG-E0514: 'FullName' must be a dotted name like com.example.App, not 1"),
    ("FullName: [a]",
     "LAG-E0514: 'FullName' must be a dotted name like com.example.App, not a list"),
    ("FullName: null",
     "LAG-E0514: 'FullName' must be a dotted name like com.example.App, not None"),
    ("Name: [x]", "LAG-E0515: 'Name' must be a string, not a list"),
    ("Name: {a: 1}", "LAG-E0515: 'Name' must be a string, not a mapping"),
    ("Version: one", "LAG-E0501: invalid version 'one': expected SemVer like 1.2.3"),
    ("Version: 1.2.3.4", "LAG-E0501: invalid version '1.2.3.4': expected SemVer like 1.2.3"),
    ("Version: [1]", "LAG-E0515: 'Version' must be a version string like 1.2.3, not a list"),
    ("Version: true", "LAG-E0515: 'Version' must be a version string like 1.2.3, not True"),
    ("Description: [x]", "LAG-E0515: 'Description' must be a string, not a list"),
    ("Description: 5", "LAG-E0515: 'Description' must be a string, not 5"),
    ("Author: {a: 1}", "LAG-E0515: 'Author' must be a string, not a mapping"),
    ("Tags: web", "LAG-E0515: 'Tags' must be a list of strings, not 'web'"),
    ("Tags: [a, {b: 1}]", "LAG-E0515: 'Tags' item 1 must be a string, not a mapping"),
    ("Tags: [true]", "LAG-E0515: 'Tags' item 0 must be a string, not True"),
    ("Classes: [x]", "LAG-E0515: 'Classes' must be a mapping, not a list"),
    ("Classes: text", "LAG-E0515: 'Classes' must be a mapping, not 'text'"),
    ("Classes: {bad name: X.yaml}",
     "LAG-E0516: class name 'bad name' in 'Classes' is not a dotted name"),
    ("Classes: {a.B: ../x.yaml}",
     "LAG-E0516: file of class 'a.B' must be a path inside the package, not '../x.yaml'"),
    ("Classes: {a.B: /abs.yaml}",
     "LAG-E0516: file of class 'a.B' must be a path inside the package, not '/abs.yaml'"),
    ("Classes: {a.B: ''}", "LAG-E0516: file of class 'a.B' must be a file name, not ''"),
    ("Classes: {a.B: [x]}", "LAG-E0516: file of class 'a.B' must be a file name, not a list"),
    ("Require: [x]", "LAG-E0515: 'Require' must be a mapping, not a list"),
    ("Require: {a.b: [1]}",
     "LAG-E0502: requirement of 'a.b' must be a version specification, not a list"),
    ("Require: {a.b: true}",
     "LAG-E0502: requirement of 'a.b' must be a version specification, not True"),
    ("Require: {a.b: ~1}",
     "LAG-E0502: requirement of 'a.b': invalid version requirement '~1': '~1' is not an "
     "operator (==, !=, >=, <=, >, <) followed by a version"),
    ("Require: {'bad!': 1}", "LAG-E0514: required package 'bad!' is not a dotted name"),
    *[(f"{key}: {written}", f"LAG-E0515: '{key}' {problem}")
      for key, name in (("UI", "ui.yaml"), ("Logo", "logo.png"))
      for written, problem in (
          (f"/etc/{name}", f"must be a path inside the package, not '/etc/{name}'"),
          (f"../{name}", f"must be a path inside the package, not '../{name}'"),
          (f"'C:/{name}'", f"must be a path inside the package, not 'C:/{name}'"),
          ("''", "must be a file name, not ''"),
          ("[x]", "must be a file name, not a list"),
          ("7", "must be a file name, not 7"))],
    ("Supplier: text", "LAG-E0515: 'Supplier' must be a mapping, not 'text'"),
    ("Supplier: [x]", "LAG-E0515: 'Supplier' must be a mapping, not a list"),
]

VALID = {"Type": "Type: Library", "FullName": "FullName: a.b"}


def _diagnostics(line: str) -> list[str]:
    key = line.split(":", 1)[0]
    lines = [v for k, v in VALID.items() if k != key] + [line]
    manifest, diagnostics = validate_manifest("\n".join(lines) + "\n")
    assert manifest is None or not [d for d in diagnostics if d.severity == "error"]
    return [f"{d.severity}:{d.span.line}: {d.code}: {d.message}" for d in diagnostics]


@pytest.mark.parametrize(("line", "problem"), ROWS, ids=[line for line, _ in ROWS])
def test_field_rejects(line: str, problem: str) -> None:
    key = line.split(":", 1)[0]
    line_number = 2 if key in VALID else 3
    assert _diagnostics(line) == [f"error:{line_number}: {problem}"]


def test_every_field_but_meta_has_rejections() -> None:
    """Meta is any value here; its classes are checked when it is first read."""
    covered = {line.split(":", 1)[0] for line, _ in ROWS}
    assert covered == {f.key for f in FIELDS} - {"Meta"}


@pytest.mark.parametrize("line", ["Logo: logo.png", "Logo: images/logo.png", "UI: ui.yaml",
                                  "Logo: null"])
def test_file_fields_accept_paths_inside_the_package(line: str) -> None:
    assert _diagnostics(line) == []


def test_unknown_field_is_a_warning() -> None:
    assert _diagnostics("Logos: x.png") == [
        "warning:3: LAG-W0519: unknown manifest field 'Logos' is ignored; known fields: "
        + ", ".join(f.key for f in FIELDS)]
