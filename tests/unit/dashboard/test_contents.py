"""What a package's page reads of its archive (laguna.dashboard.contents):
requirements, a CSAR's entry template, a descriptor, and the archives it
refuses to show, each with what is wrong."""

from __future__ import annotations

import io
import zipfile

import pytest

from laguna.dashboard.contents import MAX_FILE, Row, Section, Unreadable, contents


def archive(files: dict[str, str | bytes]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as written:
        for name, content in files.items():
            written.writestr(name, content)
    return data.getvalue()


def test_a_muranopl_package_s_requirements() -> None:
    read = contents("Application", archive({"manifest.yaml": (
        "FullName: com.example.App\nRequire:\n  com.example.Lib: 1.2\n"
        "  io.murano: '>=0.1,<2'\n  com.example.Any:\n")}))
    assert (read.source, read.version) == ("manifest.yaml", "0.0.0")
    assert read.sections == (Section("Requirements", ("Package", "Version"), (
        Row("com.example.Any", ("any version",)), Row("com.example.Lib", ("1.2",)),
        Row("io.murano", (">=0.1,<2",)))),)


def test_a_csar_s_entry_is_tosca_meta_s_entry_definitions() -> None:
    read = contents("Tosca", archive({
        "TOSCA-Metadata/TOSCA.meta": "TOSCA-Meta-File-Version: 1.1\n"
                                     "Entry-Definitions: defs/main.yaml\n"
                                     "Template-Version: 2.1\n",
        "defs/main.yaml": "topology_template:\n  inputs:\n"
                          "    size: {type: integer, required: true, "
                          "constraints: [{greater_or_equal: 1}, {less_than: 9}]}\n",
        "other.yaml": "not: read"}))
    assert (read.source, read.version) == ("defs/main.yaml", "2.1")
    assert read.sections[0].rows == (
        Row("size", ("integer", "", "greater_or_equal: 1; less_than: 9", "yes", "")),)
    assert [section.rows for section in read.sections[1:]] == [(), ()]


@pytest.mark.parametrize(("package_type", "files", "problem"), [
    ("Tosca", {"a.yaml": "x: 1", "b.yaml": "y: 2"},
     "the CSAR has no TOSCA.meta and not exactly one YAML file at its root"),
    ("Tosca", {"TOSCA-Metadata/TOSCA.meta": "CSAR-Version: 1.1\n"},
     "TOSCA-Metadata/TOSCA.meta has no Entry-Definitions"),
    ("Application", {"Classes/A.yaml": "Name: A"}, "the archive has no manifest.yaml"),
    ("Assembly", {"Definitions/other/a.yaml": "name: a"},
     "the archive has no Definitions/lm/*.yaml"),
    ("Application", {"manifest.yaml": b"\xff\xfe"}, "manifest.yaml is not UTF-8 text"),
    ("Application", {"manifest.yaml": "x" * (MAX_FILE + 1)},
     f"manifest.yaml is larger than {MAX_FILE} bytes"),
])
def test_what_cannot_be_shown_says_why(package_type: str, files: dict[str, str | bytes],
                                       problem: str) -> None:
    with pytest.raises(Unreadable) as refused:
        contents(package_type, archive(files))
    assert str(refused.value) == problem


def test_bad_yaml_names_the_file_and_line() -> None:
    with pytest.raises(Unreadable) as refused:
        contents("Application", archive({"manifest.yaml": "a: 1\nb: [\n"}))
    assert str(refused.value).startswith("manifest.yaml:3:1: ")


def test_not_a_zip() -> None:
    with pytest.raises(Unreadable) as refused:
        contents("Application", b"plain text")
    assert str(refused.value) == ("the package's archive is not a zip file: "
                                  "File is not a zip file")


def test_a_resource_descriptor_s_properties_and_lifecycle() -> None:
    read = contents("Resource", archive({"Definitions/lm/resource.yaml": (
        "name: resource::web::1.0\nproperties:\n"
        "  port: {type: integer, default: 8080, description: the port}\n"
        "  url: {type: string, read-only: true}\n"
        "lifecycle:\n  Install: {}\n  Start: {drivers: [shell]}\n")}))
    assert (read.source, read.version) == ("Definitions/lm/resource.yaml", "1.0")
    assert [section.title for section in read.sections] == ["Properties", "Lifecycle"]
    assert read.sections[0].rows == (Row("port", ("integer", "8080", "", "no", "the port")),
                                     Row("url", ("string", "", "", "yes", "")))
    assert read.sections[1].rows == (Row("Install", ("",)),
                                     Row("Start", ('{"drivers": ["shell"]}',)))
