"""Catalog benchmark: resolve and load a catalog of many packages and versions.

Generates ``--packages`` packages with ``--versions`` versions each (500 x 5
by default, ``--classes`` classes per version) into a temporary folder and
imports them into a fresh SQLite catalog. Within each group of ten packages
every package requires the previous one (``1``) and its first class extends
the previous package's, so loading a class resolves requirements across
packages. Then, through the engine's :class:`~laguna.lang.classes.ClassRegistry`
drawing from :class:`laguna.store.StoreSource` (and once more from the
folders through a :class:`~laguna.packages.source.DirectorySource`):

- resolve requirement ``1`` of every package name (picks the highest 1.x),
- load every class of those versions (parse, build, parents across packages),
- load every class of every version of the catalog.

Prints the time per operation (per class for the loads); it asserts only that
the engine chose the expected versions, so compare runs on the same machine.

    python benchmarks/bench_catalog.py [--packages 500] [--versions 5] [--classes 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from laguna.config import sqlite_url
from laguna.lang.classes import ClassRegistry
from laguna.packages.package import load_directory
from laguna.packages.source import DirectorySource, PackageSource
from laguna.packages.versions import parse_version
from laguna.store import packages as repo
from laguna.store.db import open_database
from laguna.store.source import StoreSource
from laguna.testing.packages import core_registry

CLASS_TEMPLATE = """\
Namespaces:
  =: {namespace}
  std: io.murano
  prev: {previous}
Name: {name}
Extends: {parent}
Properties:
  size:
    Contract: $.int().notNull()
    Default: {index}
Methods:
  deploy:
    Body:
      - $.size: $.size + 1
      - Return: $.size
"""
GROUP = 10   # packages per chain of requirements


def version_text(v: int, versions: int) -> str:
    return f"1.{v}.0" if v < versions - 1 else f"2.0.0-rc.{v}"


def generate(root: Path, packages: int, versions: int, classes: int) -> list[Path]:
    folders: list[Path] = []
    for p in range(packages):
        namespace = f"org.bench.p{p:04d}"
        previous = f"org.bench.p{p - 1:04d}"
        chained = p % GROUP != 0
        for v in range(versions):
            version = version_text(v, versions)
            folder = root / f"p{p:04d}-{version}"
            (folder / "Classes").mkdir(parents=True)
            lines = ["Format: 1.4", "Type: Library", f"FullName: {namespace}",
                     f"Version: {version}", "Classes:"]
            for c in range(classes):
                lines.append(f"  {namespace}.C{c}: C{c}.yaml")
                parent = "prev:C0" if chained and c == 0 else "std:Object"
                (folder / "Classes" / f"C{c}.yaml").write_text(CLASS_TEMPLATE.format(
                    namespace=namespace, previous=previous, name=f"C{c}", parent=parent,
                    index=c))
            if chained:
                lines += ["Require:", f"  {previous}: 1"]
            (folder / "manifest.yaml").write_text("\n".join(lines) + "\n")
            folders.append(folder)
    return folders


def report(what: str, count: int, seconds: float, unit: str = "op") -> None:
    print(f"{what:<44} {count:>7} x {unit:<8} {seconds:8.3f} s total  "
          f"{seconds / count * 1e6:10.1f} us/{unit}")


def engine_run(label: str, source: PackageSource, names: list[str], versions: int) -> None:
    registry: ClassRegistry = core_registry(source)
    started = time.perf_counter()
    chosen = [registry.load_package(name, "1") for name in names]
    report(f"{label}: resolve requirement '1'", len(names), time.perf_counter() - started,
           "package")
    expected = parse_version(version_text(versions - 2, versions))
    assert all(holder.version == expected for holder in chosen), "unexpected versions chosen"

    started = time.perf_counter()
    loaded = 0
    for holder in chosen:
        for class_name in holder.class_names():
            registry.class_of(holder, class_name)
            loaded += 1
    report(f"{label}: load classes of resolved versions", loaded,
           time.perf_counter() - started, "class")

    started = time.perf_counter()
    loaded = 0
    for name in names:
        for version in registry.available_versions(name):
            holder = registry.package_version(name, version)
            for class_name in holder.class_names():
                registry.class_of(holder, class_name)
                loaded += 1
    report(f"{label}: load classes of every version", loaded,
           time.perf_counter() - started, "class")
    print(f"{label}: package versions loaded: {len(registry.packages)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--packages", type=int, default=500)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--classes", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        started = time.perf_counter()
        folders = generate(root / "src", args.packages, args.versions, args.classes)
        report("generate package folders", len(folders), time.perf_counter() - started)

        started = time.perf_counter()
        packages = [load_directory(folder) for folder in folders]
        report("read package (manifest)", len(packages), time.perf_counter() - started)

        database = open_database(sqlite_url(root / "catalog.sqlite"))
        started = time.perf_counter()
        with database.session() as session:
            for package in packages:
                repo.import_package(session, package)
        report("import into SQLite", len(packages), time.perf_counter() - started)

        store = StoreSource(database)
        names = store.names()
        engine_run("catalog", store, names, args.versions)

        started = time.perf_counter()
        directory = DirectorySource([root / "src"])
        report("index folders (DirectorySource)", len(folders), time.perf_counter() - started)
        engine_run("folders", directory, names, args.versions)
        database.dispose()


if __name__ == "__main__":
    main()
