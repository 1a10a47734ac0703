"""Catalog benchmark: import many packages, resolve requirements, load class sources.

Generates ``--packages`` packages with ``--versions`` versions each (500 x 5
by default) into a temporary folder, imports them into a fresh SQLite
catalog, then, through :class:`laguna.store.StoreSource`, resolves one
requirement per package name and reads the source of every class of every
package version. Prints the time per operation; it asserts nothing, so
compare runs on the same machine.

    python benchmarks/bench_catalog.py [--packages 500] [--versions 5] [--classes 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from laguna.config import sqlite_url
from laguna.packages.package import load_directory
from laguna.packages.source import resolve
from laguna.packages.versions import parse_requirement, parse_version
from laguna.store import packages as repo
from laguna.store.db import open_database
from laguna.store.source import StoreSource

CLASS_TEMPLATE = """\
Namespaces:
  =: {namespace}
  std: io.murano
Name: {name}
Extends: std:Application
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


def generate(root: Path, packages: int, versions: int, classes: int) -> list[Path]:
    folders: list[Path] = []
    for p in range(packages):
        namespace = f"org.bench.p{p:04d}"
        for v in range(versions):
            version = f"1.{v}.0" if v < versions - 1 else f"2.0.0-rc.{v}"
            folder = root / f"p{p:04d}-{version}"
            (folder / "Classes").mkdir(parents=True)
            lines = ["Format: 1.4", "Type: Library", f"FullName: {namespace}",
                     f"Version: {version}", "Classes:"]
            for c in range(classes):
                lines.append(f"  {namespace}.C{c}: C{c}.yaml")
                (folder / "Classes" / f"C{c}.yaml").write_text(
                    CLASS_TEMPLATE.format(namespace=namespace, name=f"C{c}", index=c))
            if p:
                lines += ["Require:", f"  org.bench.p{p - 1:04d}: 1"]
            (folder / "manifest.yaml").write_text("\n".join(lines) + "\n")
            folders.append(folder)
    return folders


def report(what: str, count: int, seconds: float) -> None:
    print(f"{what:<32} {count:>7} ops  {seconds:8.3f} s total  "
          f"{seconds / count * 1e6:10.1f} us/op")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
        loaded = [load_directory(folder) for folder in folders]
        report("load package (manifest)", len(loaded), time.perf_counter() - started)

        database = open_database(sqlite_url(root / "catalog.sqlite"))
        started = time.perf_counter()
        with database.session() as session:
            for package in loaded:
                repo.import_package(session, package)
        report("import into SQLite", len(loaded), time.perf_counter() - started)

        source = StoreSource(database)
        names = source.names()
        requirement = parse_requirement("1")
        started = time.perf_counter()
        resolved = [resolve(source, name, requirement) for name in names]
        report("resolve requirement '1'", len(names), time.perf_counter() - started)
        assert all(p.version == parse_version(f"1.{args.versions - 2}.0") for p in resolved)

        source.clear()
        started = time.perf_counter()
        fetched = [source.get(name, version) for name in names for version in source.versions(name)]
        report("fetch package from store", len(fetched), time.perf_counter() - started)

        started = time.perf_counter()
        loads = 0
        for package in fetched:
            for class_name in package.class_names():
                package.class_source(class_name)
                loads += 1
        report("load class source", loads, time.perf_counter() - started)
        database.dispose()


if __name__ == "__main__":
    main()
