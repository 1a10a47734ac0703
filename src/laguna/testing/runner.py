"""The MuranoPL test runner behind `laguna test`.

A test is a method whose name starts with ``test`` of a class that extends
io.murano.test.TestFixture. Each test gets a fresh executor and a fresh
fixture object; ``setUp`` runs before and ``tearDown`` after it.
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
import typing as t
import xml.etree.ElementTree as ET

from laguna.configfolder import ClassConfigFolder
from laguna.errors import LagunaError
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.types import MuranoClass
from laguna.packages.source import PackageSource
from laguna.testing.packages import core_registry, library_source, read_package_dir

FIXTURE_CLASS = "io.murano.test.TestFixture"
# a folder of class configuration files a tested package may bring for its tests
PACKAGE_CLASS_CONFIGS = "ClassConfigs"


@dataclasses.dataclass
class TestResult:
    class_name: str
    method: str
    passed: bool
    seconds: float
    message: str = ""
    trace: str = ""

    @property
    def name(self) -> str:
        return f"{self.class_name}.{self.method}"


def library_packages(lib_dir: pathlib.Path) -> list[PackageClasses]:
    """Packages under a -l folder: the folder itself or each sub-folder with a manifest."""
    if (lib_dir / "manifest.yaml").is_file():
        return [read_package_dir(lib_dir)]
    return [read_package_dir(p) for p in sorted(lib_dir.iterdir())
            if p.is_dir() and (p / "manifest.yaml").is_file()]


class TestRunner:
    def __init__(self, package_dir: pathlib.Path,
                 lib_dirs: t.Sequence[pathlib.Path] = (),
                 class_configs: pathlib.Path | None = None,
                 sources: t.Sequence[PackageSource] = ()) -> None:
        """``class_configs``: the folder of class configuration files; by
        default the package's own ``ClassConfigs/`` folder, if it has one.
        Packages the tested one requires come from the ``lib_dirs`` (folders
        of packages, or packages) and then from ``sources`` (the catalog)."""
        if class_configs is None and (package_dir / PACKAGE_CLASS_CONFIGS).is_dir():
            class_configs = package_dir / PACKAGE_CLASS_CONFIGS
        self.class_configs = (ClassConfigFolder(class_configs)
                              if class_configs is not None else None)
        self.libraries = library_source(lib_dirs)
        self.registry: ClassRegistry = core_registry(self.libraries, *sources)
        self.package = read_package_dir(package_dir)
        self.registry.add(self.package)

    def fixtures(self) -> list[MuranoClass]:
        fixture = self.registry.find(FIXTURE_CLASS)
        result = []
        for name in self.package.class_names():
            cls = self.registry.find(name, self.package.package)
            if cls is not fixture and fixture in cls.ancestry:
                result.append(cls)
        return result

    def select(self, patterns: t.Sequence[str]) -> list[tuple[MuranoClass, str]]:
        cases = []
        for cls in self.fixtures():
            methods = sorted(name for c in cls.mro for name in c.methods
                             if name.startswith("test"))
            for method in dict.fromkeys(methods):
                if not patterns or any(_matches(p, cls.name, method) for p in patterns):
                    cases.append((cls, method))
        return cases

    def run_one(self, cls: MuranoClass, method: str) -> TestResult:
        started = time.perf_counter()
        executor = Executor(self.registry, class_configs=self.class_configs)
        try:
            fixture = executor.new_object(cls, None, {})
            executor.call(fixture, "setUp")
            try:
                executor.call(fixture, method)
            finally:
                executor.call(fixture, "tearDown")
        except MuranoPlError as error:
            return TestResult(cls.name, method, False, time.perf_counter() - started,
                              f"{', '.join(error.names)}: {error.message}",
                              error.format("  ").split("\n", 1)[1])
        except LagunaError as error:
            return TestResult(cls.name, method, False, time.perf_counter() - started,
                              str(error))
        return TestResult(cls.name, method, True, time.perf_counter() - started)


def _matches(pattern: str, class_name: str, method: str) -> bool:
    """CLASS or CLASS.METHOD, the class named in full or by its last part."""
    short = class_name.rsplit(".", 1)[-1]
    if pattern in (class_name, short):
        return True
    head, _, tail = pattern.rpartition(".")
    return tail == method and head in (class_name, short)


def junit_xml(results: t.Sequence[TestResult], suite: str) -> bytes:
    failures = sum(1 for r in results if not r.passed)
    root = ET.Element("testsuite", name=suite, tests=str(len(results)),
                      failures=str(failures), errors="0",
                      time=f"{sum(r.seconds for r in results):.6f}")
    for result in results:
        case = ET.SubElement(root, "testcase", classname=result.class_name,
                             name=result.method, time=f"{result.seconds:.6f}")
        if not result.passed:
            failure = ET.SubElement(case, "failure", message=result.message)
            failure.text = result.trace or result.message
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data
