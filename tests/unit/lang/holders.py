"""An empty class in a package of its own, and an object of it: what contract
tests apply their contracts for (``$this``, class names resolved in its namespace)."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir


def empty_holder(directory: Path, namespace: str) -> tuple[Executor, t.Any, t.Any]:
    """(executor, the class ``NAMESPACE.Holder``, an object of it)."""
    package = directory / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        f"Format: 1.4\nType: Library\nFullName: {namespace}\n"
        f"Classes:\n  {namespace}.Holder: Holder.yaml\n")
    (package / "Classes" / "Holder.yaml").write_text(
        f"Namespaces:\n  =: {namespace}\nName: Holder\n")
    registry = core_registry()
    registry.add(read_package_dir(package))
    executor = Executor(registry)
    cls = registry.find(f"{namespace}.Holder")
    return executor, cls, executor.new_object(cls, None, {})
