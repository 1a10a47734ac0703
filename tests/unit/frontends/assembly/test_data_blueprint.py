"""An assembly given as data (the API's path, ``Service.deploy_data``): a descriptor
name or body, inputs and state, with types from the catalog store; and later
intents that need neither the store nor ``-l``."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.config import sqlite_url
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.assembly import AssemblyFrontend
from laguna.frontends.assembly.frontend import assembly_json
from laguna.frontends.assembly.packaging import read_package
from laguna.store import environments
from laguna.store import packages as repo
from laguna.store.db import Database, open_database
from laguna.store.source import StoreSource

CATALOG = Path(__file__).parents[3] / "conformance" / "descriptors" / "catalog"
BODY: dict[str, t.Any] = {
    "name": "assembly::t.data::1.0",
    "properties": {"label": {"type": "string", "required": True}},
    "composition": {
        "s": {"type": "resource::t.server::1.0",
              "dynamicType": "{{ 'resource::t.server::[1.0,2.0)'|resolveVersion }}",
              "properties": {"label": {"value": "${label}"}}},
        "h": {"type": "resource::t.healer::1.0"}}}


def _import(database: Database, folder: Path) -> str:
    package = read_package(folder)
    with database.session() as session:
        record = repo.import_descriptor_package(
            session, kind=package.kind, name=package.name, version=package.version,
            description=package.description, archive=package.archive,
            manifest=package.manifest)
        return record.id.hex


@pytest.fixture()
def database(tmp_path: Path) -> t.Iterator[Database]:
    database = open_database(sqlite_url(tmp_path / "catalog.sqlite"))
    for name in ("t.server-1.9", "t.server-1.10", "t.healer-1.0"):
        _import(database, CATALOG / name)
    yield database
    database.dispose()


@pytest.fixture()
def service(tmp_path: Path, database: Database) -> Service:
    work = tmp_path / "work"
    work.mkdir()
    return Service(Workdir(work), FrontendRegistry([AssemblyFrontend()]),
                   catalog=StoreSource(database))


def _log(service: Service) -> list[str]:
    path = service.workdir.root / "log.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    path.unlink(missing_ok=True)
    return lines


def test_a_body_deploys_with_types_from_the_store(service: Service) -> None:
    result = service.deploy_data("demo", "assembly", {"descriptor": BODY,
                                                      "inputs": {"label": "x"},
                                                      "state": "Installed"})
    data = assembly_json(result)
    assert (data["status"], data["state"], data["descriptor"]) == (
        "ok", "Installed", "assembly::t.data::1.0")
    assert {k: (v["state"], v["type"]) for k, v in data["components"].items()} == {
        "demo__s": ("Installed", "resource::t.server::1.10"),
        "demo__h": ("Installed", "resource::t.healer::1.0")}
    assert _log(service) == ["Install demo__s label=x", "Install demo__h"]
    # the environment keeps what it used; the store's scripts ran from the cache
    cache = service.workdir.state_dir / "descriptors"
    assert sorted(p.name.split("-")[0] for p in cache.iterdir()) == [
        "data", "store", "store"]


def test_later_intents_need_neither_the_store_nor_the_body(
        service: Service, tmp_path: Path) -> None:
    assert service.deploy_data("demo", "assembly", {"descriptor": BODY,
                                                    "inputs": {"label": "x"}}).status == "ok"
    _log(service)
    alone = Service(service.workdir, FrontendRegistry([AssemblyFrontend()]))
    result = alone.action("demo", "demo", "change-state", {"state": "Inactive"})
    assert (result.status, result.state) == ("ok", "ready")
    assert _log(alone) == ["Stop demo__h"]
    assert alone.undeploy("demo").status == "ok"
    assert _log(alone) == ["Uninstall demo__h"]


def test_a_descriptor_name_is_looked_up_in_the_store(service: Service, tmp_path: Path,
                                                    database: Database) -> None:
    package = tmp_path / "asm" / "Definitions" / "lm"
    package.mkdir(parents=True)
    (package / "assembly.yaml").write_text(
        "name: assembly::t.named::1.0\nproperties: {}\ncomposition:\n  h:\n"
        "    type: resource::t.healer::1.0\n")
    _import(database, tmp_path / "asm")
    result = service.deploy_data("named", "assembly", {"descriptor": "assembly::t.named::1.0",
                                                       "state": "Installed"})
    assert (result.status, assembly_json(result)["descriptor"]) == (
        "ok", "assembly::t.named::1.0")
    assert _log(service) == ["Install named__h"]


@pytest.mark.parametrize(("data", "kind", "message"), [
    ({"descriptor": "assembly::t.none::1.0"}, "descriptor_not_found",
     "descriptor 'assembly::t.none::1.0' is not in the catalog"),
    ({"descriptor": {**BODY, "composition": {"s": {"type": "resource::t.none::1.0"}}},
      "inputs": {"label": "x"}}, "descriptor_not_found",
     "assembly::t.data::1.0 (given as data): descriptor 'resource::t.none::1.0' is not in "
     "the catalog"),
    ({"descriptor": {**BODY, "properties": {**BODY["properties"], "p": {"type": "widget"}}},
      "inputs": {"label": "x"}}, "invalid_data_type",
     "assembly::t.data::1.0 (given as data): property 'p' has unknown type 'widget'"),
    ({"descriptor": BODY}, "missing_required_property",
     "assembly::t.data::1.0 (given as data): required property 'label' of "
     "assembly::t.data::1.0 has no value"),
    ({"descriptor": {**BODY, "name": "assembly::t data::1.0"}}, "invalid_descriptor_name",
     "assembly::t data::1.0 (given as data): descriptor name 't data' must start with a "
     "letter, end with a letter or digit, and hold only letters, digits, '.', and "
     "non-consecutive '_' and '-'"),
    ({"descriptor": BODY, "inputs": {"label": "x"}, "state": "Up"}, "invalid_intent",
     "intended state 'Up' is not Installed, Inactive or Active"),
    ({"descriptor": BODY, "inputs": ["label"]}, "invalid_property_value",
     "inputs must be a JSON object"),
    ({"descriptor": 3}, "model_invalid",
     "descriptor must be a descriptor name (assembly::NAME::VERSION) or a descriptor body "
     "(an object)"),
    ({"descriptor": BODY, "extra": 1}, "model_invalid",
     "an assembly given as data has no key 'extra' (it takes descriptor, inputs and state)"),
])
def test_bad_data_is_rejected_naming_the_descriptor(service: Service, data: dict[str, t.Any],
                                                    kind: str, message: str) -> None:
    result = service.deploy_data("demo", "assembly", data)
    assert result.status == "rejected"
    assert (result.error.kind, result.error.message) == (kind, message)  # type: ignore[union-attr]
    assert _log(service) == []


def test_an_environment_that_kept_no_descriptors_reads_its_descriptor_path(
        service: Service, tmp_path: Path) -> None:
    """Environments deployed before they kept their descriptors held only the path."""
    path = tmp_path / "a.yaml"
    path.write_text("name: assembly::t.old::1.0\nproperties: {}\ncomposition:\n"
                    "  h:\n    type: resource::t.healer::1.0\n")
    assert service.deploy(path, PrepareOptions(name="old", libs=(CATALOG,))).status == "ok"
    database = service.workdir.open_store()
    try:
        with database.session() as session:
            record = environments.find_environment(session, environments.LOCAL_PROJECT, "old")
            assert record is not None
            environments.replace_packages(session, record, [])
            record.model = {**record.model, "descriptor_path": str(path)}
    finally:
        database.dispose()
    _log(service)
    result = service.action("old", "old", "change-state", {"state": "Inactive"})
    assert (result.status, _log(service)) == ("ok", ["Stop old__h"])
    # that intent left the environment keeping its descriptors: the file is not needed
    path.unlink()
    result = service.action("old", "old", "change-state", {"state": "Active"})
    assert (result.status, _log(service)) == ("ok", ["Start old__h", "Integrity old__h"])
