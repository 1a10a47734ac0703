"""CSARs as catalog packages (frontends/tosca/csar.py): what an import reads and
refuses, and how ``catalog:NAME`` imports choose a version."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.frontends.tosca.csar import (
    CatalogCsarError,
    CatalogImports,
    check_csar,
    choose,
    read_csar_bytes,
    split_reference,
)
from laguna.frontends.tosca.topology import load_topology
from tests.unit.frontends.tosca.csars import zip_of

META = ("TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: tests\n"
        "Entry-Definitions: service.yaml\n")


def _template(name: str = "app", version: str = "1.2", body: str = "") -> str:
    return (f"tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n"
            f"  template_name: {name}\n  template_version: '{version}'\n{body}")


TYPES = """node_types:
  example.Thing:
    derived_from: tosca.nodes.Root
"""


class FakeStore:
    """A catalog holding CSAR archives by name and version (ids are ``name@version``)."""

    def __init__(self, packages: dict[tuple[str, str], bytes]) -> None:
        self.packages = packages

    def tosca_packages(self, name: str) -> list[tuple[str, str]]:
        return [(v, f"{n}@{v}") for (n, v) in self.packages if n == name]

    def tosca_archive(self, package_id: str) -> bytes:
        name, _, version = package_id.partition("@")
        return self.packages[(name, version)]


def _read(files: dict[str, str], catalog: CatalogImports | None = None):  # type: ignore[no-untyped-def]
    return read_csar_bytes(zip_of(files), lambda root: check_csar(root, catalog), "upload")


def test_a_csar_is_stored_with_the_templates_name_and_version() -> None:
    found = _read({"TOSCA-Metadata/TOSCA.meta": META,
                   "service.yaml": _template(body=TYPES)})
    assert (found.name, found.version) == ("app", "1.2.0")
    assert found.manifest == {"Format": "TOSCA/1.3", "Entry-Definitions": "service.yaml",
                              "Template": "app", "Types": ["example.Thing"],
                              "Substitutes": None, "Deployable": False}


def test_a_csar_without_entry_definitions_is_refused() -> None:
    with pytest.raises(CatalogCsarError) as caught:
        _read({"TOSCA-Metadata/TOSCA.meta": META.replace("Entry-Definitions: service.yaml\n",
                                                         ""),
               "service.yaml": _template()})
    assert caught.value.message == ("CSAR refused: TOSCA-Metadata/TOSCA.meta has no "
                                    "Entry-Definitions")


def test_a_csar_with_a_path_out_of_it_is_refused_before_anything_is_written(
        tmp_path: Path) -> None:
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(), "../../evil.sh": "rm -rf /"})
    assert caught.value.message == ("CSAR refused: archive entry '../../evil.sh' points "
                                    "outside the package ('..')")


def test_a_csar_with_an_absolute_path_is_refused() -> None:
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(), "/etc/cron.d/x": "* * * * * root true"})
    assert caught.value.message == ("CSAR refused: archive entry '/etc/cron.d/x' has an "
                                    "absolute path")


def test_a_template_version_that_is_no_version_is_refused() -> None:
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(version="one")})
    assert caught.value.message == ("CSAR refused: template_version 'one': invalid version "
                                    "'one': expected SemVer like 1.2.3")


def test_an_input_without_a_value_is_no_problem_for_the_catalog() -> None:
    found = _read({"service.yaml": _template(body=(
        "topology_template:\n  inputs:\n    size: {type: integer}\n  node_templates:\n"
        "    a: {type: tosca.nodes.Root}\n"))})
    assert found.manifest["Deployable"] is True


def test_an_import_of_a_package_the_catalog_does_not_have_is_refused(tmp_path: Path) -> None:
    catalog = CatalogImports(FakeStore({}), tmp_path)
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(body="imports:\n  - catalog:nothing>=1.0\n")},
              catalog)
    assert [str(p) for p in caught.value.problems] == [
        "service.yaml:6:5: error[LAG-E1502]: import catalog:nothing>=1.0: no TOSCA package "
        "nothing >=1.0 in the catalog"]


def test_an_import_from_the_catalog_without_one_is_refused() -> None:
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(body="imports:\n  - file: catalog:types\n")})
    assert [p.message for p in caught.value.problems] == [
        "import catalog:types: no catalog to import from here"]


def test_requirements_choose_versions_as_murano_require_does() -> None:
    versions = ["1.0.0", "1.5.0", "2.0.0"]
    assert choose(versions, None) == "2.0.0"
    assert choose(versions, ">=1.0,<2.0") == "1.5.0"
    assert choose(versions, "==1.0") == "1.0.0"
    assert choose(versions, ">=3.0") is None
    assert split_reference("web>=1.0,<2.0") == ("web", ">=1.0,<2.0")
    assert split_reference("web") == ("web", None)


def _types_csar(version: str, kind: str) -> bytes:
    return zip_of({"service.yaml": _template("types", version, f"""node_types:
  {kind}:
    derived_from: tosca.nodes.Root
""")})


def test_an_import_reads_the_version_its_requirement_chooses(tmp_path: Path) -> None:
    store = FakeStore({("types", "1.0.0"): _types_csar("1.0.0", "v1.Thing"),
                       ("types", "1.4.0"): _types_csar("1.4.0", "v14.Thing"),
                       ("types", "2.0.0"): _types_csar("2.0.0", "v2.Thing")})
    catalog = CatalogImports(store, tmp_path / "cache")
    entry = tmp_path / "service.yaml"
    entry.write_text(_template(body="imports:\n  - catalog:types<2.0\n"
                               "topology_template:\n  node_templates:\n"
                               "    a: {type: v14.Thing}\n"))
    topology, problems = load_topology(entry, catalog=catalog)
    assert [str(p) for p in problems] == []
    assert topology is not None and topology.nodes["a"].type == "v14.Thing"
    # unpacked once into the cache, which answers alone later (an action's reopening)
    assert (tmp_path / "cache" / "types" / "1.4.0" / ".package-id").read_text() == \
        "types@1.4.0"
    again, problems = load_topology(entry, catalog=CatalogImports(None, tmp_path / "cache"))
    assert again is not None and again.nodes["a"].type == "v14.Thing"


def test_a_csar_of_more_entries_than_a_package_may_hold_is_refused() -> None:
    files = {f"scripts/{i}.sh": "" for i in range(10_000)}
    with pytest.raises(CatalogCsarError) as caught:
        _read({"service.yaml": _template(), **files})
    assert caught.value.message == ("CSAR refused: archive has 10001 entries; the limit is "
                                    "10000")
