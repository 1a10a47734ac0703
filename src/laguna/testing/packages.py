"""Packages for the engine: a folder or archive as classes, and the core library."""

from __future__ import annotations

import functools
import os
import typing as t

from laguna.corelib import APPLICATIONS_PACKAGE_DIR, CORE_PACKAGE_DIR, bind_natives, functions
from laguna.lang.check import MuranoPlChecker
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.packages.check import Checker, checkers
from laguna.packages.package import Package, load_package
from laguna.packages.source import DirectorySource, PackageSource


def read_package_dir(path: str | os.PathLike[str]) -> PackageClasses:
    """The classes of a package folder or zip (the manifest is validated now,
    class files are parsed when used)."""
    return PackageClasses.from_package(load_package(path))


@functools.lru_cache(maxsize=1)
def _core_package() -> Package:
    # The core library's files never change while laguna runs; reading its
    # manifest once per process is enough (each registry parses classes anew).
    return load_package(CORE_PACKAGE_DIR)


def core_registry(*sources: PackageSource) -> ClassRegistry:
    """A registry holding the core library, with its native methods bound,
    that draws further packages from ``sources``, then from the bundled
    application framework library (io.murano.applications); its code may call
    the functions of the language and of the core library."""
    registry = ClassRegistry(*sources, DirectorySource([APPLICATIONS_PACKAGE_DIR]),
                             functions=functions())
    bind_natives(registry)
    registry.add(PackageClasses.from_package(_core_package()))
    return registry


def library_source(paths: t.Iterable[str | os.PathLike[str]]) -> DirectorySource:
    """The packages under ``-l`` paths: each a package folder or zip, or a folder
    of them."""
    return DirectorySource(paths)


def muranopl_checker(*sources: PackageSource) -> MuranoPlChecker:
    """The MuranoPL package check (``laguna package check``), resolving required
    packages from the core library and ``sources``."""
    return MuranoPlChecker(lambda: core_registry(*sources))


def import_checkers(*sources: PackageSource) -> list[Checker]:
    """Every check a package passes before it enters the catalog (``laguna
    package check``, ``build`` and ``import``, and the API's upload): the
    built-in ones, then MuranoPL's with required packages from ``sources``."""
    return [*checkers(), muranopl_checker(*sources)]
