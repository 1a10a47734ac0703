"""An intent's layered catalog: -l folders, kept packages, the deploy's folders and
the catalog store; store archives unpacked once; what an environment keeps."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from laguna.deploy.context import StoredPackage
from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.sources import (
    DescriptorStore,
    PackageCache,
    kept_packages,
    layered_catalog,
)
from laguna.packages.archive import build_archive

CATALOG = Path(__file__).parents[3] / "conformance" / "descriptors" / "catalog"


def _archive(folder: Path) -> bytes:
    buffer = io.BytesIO()
    build_archive(folder, buffer)
    return buffer.getvalue()


class FakeStore:
    """Descriptor packages by id; counts archive reads."""

    def __init__(self, packages: dict[str, tuple[str, bytes]]) -> None:
        self.packages = packages
        self.reads: list[str] = []

    def descriptors(self) -> list[tuple[str, str]]:
        return sorted((name, key) for key, (name, _) in self.packages.items())

    def descriptor_archive(self, package_id: str) -> bytes:
        self.reads.append(package_id)
        return self.packages[package_id][1]


def _healer(tmp_path: Path, label: str) -> Path:
    """A resource::t.healer::1.0 package whose Install script says ``label``."""
    root = tmp_path / label
    (root / "Definitions" / "lm").mkdir(parents=True)
    (root / "Definitions" / "lm" / "resource.yaml").write_text(
        f"name: resource::t.healer::1.0\ndescription: {label}\nlifecycle: [Install]\n")
    (root / "Lifecycle" / "shell" / "scripts").mkdir(parents=True)
    (root / "Lifecycle" / "shell" / "scripts" / "Install.sh").write_text(f"echo {label}\n")
    return root


def test_the_store_is_unpacked_once_and_maps_versions_back(tmp_path: Path) -> None:
    store = FakeStore({"id9": ("resource::t.server::1.9", _archive(CATALOG / "t.server-1.9")),
                       "id10": ("resource::t.server::1.10",
                                _archive(CATALOG / "t.server-1.10"))})
    assert isinstance(store, DescriptorStore)
    cache = PackageCache(tmp_path / "cache")
    catalog = layered_catalog(cache, store=store)
    assert store.reads == []  # listing reads no archive
    assert catalog.resolve_version("resource::t.server::[1.0,2.0)") == \
        "resource::t.server::1.10"
    server = catalog.get("resource::t.server::1.10")
    assert server.package == cache.root / "store-id10"
    assert server.lifecycle == ("Install",)
    again = layered_catalog(cache, store=store).get("resource::t.server::1.10")
    assert again.package == server.package
    assert store.reads == ["id10"]
    assert sorted(p.name for p in cache.root.iterdir()) == ["store-id10"]


def test_layers_in_precedence_order(tmp_path: Path) -> None:
    given, deployed, stored = (_healer(tmp_path, n) for n in ("given", "deployed", "stored"))
    kept = StoredPackage("resource::t.healer", "1.0", _archive(_healer(tmp_path, "kept")))
    store = FakeStore({"s": ("resource::t.healer::1.0", _archive(stored))})
    cache = PackageCache(tmp_path / "cache")

    def description(**layers: object) -> str:
        catalog = layered_catalog(cache, **layers)  # type: ignore[arg-type]
        return catalog.get("resource::t.healer::1.0").description

    everything = {"given": [given], "kept": [kept], "remembered": [deployed], "store": store}
    assert description(**everything) == "given"
    assert description(**{**everything, "given": []}) == "kept"
    assert description(remembered=[deployed], store=store) == "deployed"
    assert description(remembered=[tmp_path / "gone"], store=store) == "stored"
    assert store.reads == ["s"]


def test_kept_packages_are_what_the_intent_loaded(tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    (lone / "Lifecycle" / "shell" / "scripts").mkdir(parents=True)
    (lone / "Lifecycle" / "shell" / "scripts" / "Install.sh").write_text("exit 0\n")
    (lone / "r.yaml").write_text("name: resource::t.lone::2.1\nlifecycle: [Install]\n")
    (lone / "unrelated.txt").write_text("not kept\n")
    catalog = layered_catalog(None, [CATALOG, lone])
    catalog.get("resource::t.lone::2.1")
    catalog.get("resource::t.server::1.10")
    kept = kept_packages(catalog)
    assert [(p.name, p.version) for p in kept] == [("resource::t.lone", "2.1"),
                                                   ("resource::t.server", "1.10")]
    assert zipfile.ZipFile(io.BytesIO(kept[0].archive)).namelist() == [
        "Definitions/lm/r.yaml", "Lifecycle/shell/scripts/Install.sh"]
    assert "Lifecycle/shell/scripts/Upgrade.sh" in \
        zipfile.ZipFile(io.BytesIO(kept[1].archive)).namelist()


def test_an_unsafe_stored_archive_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../escape.yaml", "name: resource::t.evil::1.0\n")
    store = FakeStore({"bad": ("resource::t.evil::1.0", buffer.getvalue())})
    catalog = layered_catalog(PackageCache(tmp_path / "cache"), store=store)
    with pytest.raises(e.DescriptorError) as raised:
        catalog.get("resource::t.evil::1.0")
    assert raised.value.kind == "invalid_descriptor"
    assert raised.value.message.startswith("stored package resource::t.evil::1.0: ")
    assert not (tmp_path / "escape.yaml").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []
