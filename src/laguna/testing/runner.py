"""The MuranoPL test runner behind `laguna test`.

A test is a method whose name starts with ``test`` of a class that extends
io.murano.test.TestFixture. Each test gets a fresh executor and a fresh
fixture object; ``setUp`` runs before and ``tearDown`` after it.

A class of the package that cannot be loaded (a missing parent, a version
conflict between the packages it inherits from) does not stop the run: tests
that use it fail there with its MuranoPL error, and its own ``test*`` methods,
read from its document, are reported failed with the error (a document that
cannot be read at all is one failed case, :data:`LOAD_CASE`).
"""

from __future__ import annotations

import dataclasses
import pathlib
import time
import typing as t
import xml.etree.ElementTree as ET

from laguna.configfolder import ClassConfigFolder
from laguna.corelib.native import AssertionFailed
from laguna.corelib.services import attach
from laguna.errors import LagunaError
from laguna.lang.classes import ClassRegistry, PackageClasses
from laguna.lang.errors import MuranoPlError, murano_names
from laguna.lang.executor import Executor
from laguna.lang.functions import Host
from laguna.lang.types import MuranoClass
from laguna.packages.source import PackageSource
from laguna.testing.packages import core_registry, library_source, read_package_dir
from laguna.yaql.engine import DEFAULT_LIMITS, Limits

FIXTURE_CLASS = "io.murano.test.TestFixture"
# a folder of class configuration files a tested package may bring for its tests
PACKAGE_CLASS_CONFIGS = "ClassConfigs"
# the case reporting a class whose file cannot be read (its tests are unknown)
LOAD_CASE = "<load>"


@dataclasses.dataclass
class TestResult:
    class_name: str
    method: str
    passed: bool
    seconds: float
    message: str = ""
    trace: str = ""
    # False: an assertion did not hold (JUnit <failure>); True: anything else
    # went wrong (JUnit <error>): an exception, setUp, tearDown, a class load
    error: bool = False

    @property
    def name(self) -> str:
        return f"{self.class_name}.{self.method}"


@dataclasses.dataclass(frozen=True)
class UnloadableClass:
    """A class of the tested package that failed to load, in place of its MuranoClass."""

    name: str
    error: LagunaError

    def result(self, method: str) -> TestResult:
        message = getattr(self.error, "message", None) or str(self.error)
        # the laguna error in full: its position and code
        trace = f"  class {self.name} cannot be loaded: {self.error}"
        return TestResult(self.name, method, False, 0.0,
                          f"{', '.join(murano_names(self.error))}: {message}", trace,
                          error=True)


Case = tuple[MuranoClass | UnloadableClass, str]


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
                 sources: t.Sequence[PackageSource] = (),
                 host: Host | None = None,
                 services: t.Callable[[], t.Any] | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        """``class_configs``: the folder of class configuration files; by
        default the package's own ``ClassConfigs/`` folder, if it has one.
        Packages the tested one requires come from the ``lib_dirs`` (folders
        of packages, or packages) and then from ``sources`` (the catalog).
        ``host`` answers config() and decryptData() (default: nothing);
        ``services`` makes the deployment services each test runs with
        (laguna.corelib.services; default: none, cloud calls fail);
        ``limits`` are the sandbox's limits each call (setUp, the test,
        tearDown) runs under."""
        self.host = host
        self.limits = limits
        self.services = services
        if class_configs is None and (package_dir / PACKAGE_CLASS_CONFIGS).is_dir():
            class_configs = package_dir / PACKAGE_CLASS_CONFIGS
        self.class_configs = (ClassConfigFolder(class_configs)
                              if class_configs is not None else None)
        self.libraries = library_source(lib_dirs)
        self.registry: ClassRegistry = core_registry(self.libraries, *sources)
        self.package = read_package_dir(package_dir)
        self.registry.add(self.package)

    def fixtures(self) -> list[MuranoClass | UnloadableClass]:
        """The fixture classes, and the classes that fail to load (in file order)."""
        fixture = self.registry.find(FIXTURE_CLASS)
        result: list[MuranoClass | UnloadableClass] = []
        for name in self.package.class_names():
            try:
                cls = self.registry.find(name, self.package.package)
            except LagunaError as error:
                result.append(UnloadableClass(name, error))
                continue
            if cls is not fixture and fixture in cls.ancestry:
                result.append(cls)
        return result

    def _declared_tests(self, name: str) -> list[str]:
        """The ``test*`` methods a class document declares (for a class that does
        not load); when the document itself cannot be read, one case named
        :data:`LOAD_CASE` reports that."""
        try:
            doc = self.package.document(name)
        except LagunaError:
            return [LOAD_CASE]
        methods = doc.get("Methods") if isinstance(doc, dict) else None
        if not isinstance(methods, dict):
            return []
        return sorted(str(m) for m in methods if str(m).startswith("test"))

    def select(self, patterns: t.Sequence[str]) -> list[Case]:
        cases: list[Case] = []
        for cls in self.fixtures():
            if isinstance(cls, UnloadableClass):
                methods = self._declared_tests(cls.name)
            else:
                methods = sorted(name for c in cls.mro for name in c.methods
                                 if name.startswith("test"))
            for method in dict.fromkeys(methods):
                if not patterns or any(_matches(p, cls.name, method) for p in patterns):
                    cases.append((cls, method))
        return cases

    def unmatched(self, patterns: t.Sequence[str], cases: t.Sequence[Case]) -> list[str]:
        """The ``patterns`` that no case of ``cases`` (what :meth:`select` chose) matches."""
        return [p for p in dict.fromkeys(patterns)
                if not any(_matches(p, cls.name, method) for cls, method in cases)]

    def run_one(self, cls: MuranoClass | UnloadableClass, method: str) -> TestResult:
        if isinstance(cls, UnloadableClass):
            return cls.result(method)
        started = time.perf_counter()
        executor = Executor(self.registry, self.limits, class_configs=self.class_configs,
                            host=self.host)
        if self.services is not None:
            attach(executor, self.services())
        try:
            fixture = executor.new_object(cls, None, {})
            executor.call(fixture, "setUp")
        except LagunaError as error:
            # unittest's rule: when setUp fails, neither the test nor tearDown runs
            return _failed(cls.name, method, started, error)
        outcome: TestResult | None = None
        try:
            executor.call(fixture, method)
        except LagunaError as error:
            outcome = _failed(cls.name, method, started, error)
        try:
            executor.call(fixture, "tearDown")
        except LagunaError as error:
            cleanup = _failed(cls.name, method, started, error)
            if outcome is None:
                return cleanup
            # the test's own failure comes first; the cleanup's is kept beside it
            outcome.trace += (f"\n\n  During tearDown, another error: {cleanup.message}\n"
                              f"{cleanup.trace}")
            return outcome
        if outcome is not None:
            return outcome
        return TestResult(cls.name, method, True, time.perf_counter() - started)


def _failed(class_name: str, method: str, started: float, error: LagunaError) -> TestResult:
    seconds = time.perf_counter() - started
    if isinstance(error, MuranoPlError):
        return TestResult(class_name, method, False, seconds,
                          f"{', '.join(error.names)}: {error.message}",
                          error.format("  ").split("\n", 1)[1],
                          error=not isinstance(error.original, AssertionFailed))
    return TestResult(class_name, method, False, seconds, str(error), error=True)


def _matches(pattern: str, class_name: str, method: str) -> bool:
    """CLASS or CLASS.METHOD, the class named in full or by its last part."""
    short = class_name.rsplit(".", 1)[-1]
    if pattern in (class_name, short):
        return True
    head, _, tail = pattern.rpartition(".")
    return tail == method and head in (class_name, short)


def junit_xml(results: t.Sequence[TestResult], suite: str) -> bytes:
    """The results as a JUnit XML report: a failed assertion is a ``<failure>``,
    any other error an ``<error>``, each with its message and MuranoPL trace."""
    errors = sum(1 for r in results if not r.passed and r.error)
    failures = sum(1 for r in results if not r.passed) - errors
    root = ET.Element("testsuite", name=suite, tests=str(len(results)),
                      failures=str(failures), errors=str(errors),
                      time=f"{sum(r.seconds for r in results):.6f}")
    for result in results:
        case = ET.SubElement(root, "testcase", classname=result.class_name,
                             name=result.method, time=f"{result.seconds:.6f}")
        if not result.passed:
            element = ET.SubElement(case, "error" if result.error else "failure",
                                    message=result.message)
            element.text = result.trace or result.message
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data
