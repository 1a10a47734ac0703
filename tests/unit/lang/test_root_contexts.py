"""An executor builds the yaql root context of a flavour (Format 1.0/1.1's
legacy one, or the newer one) when a class of that flavour first runs: each
takes ~25 ms to build in a new process, and most runs need only one."""

from __future__ import annotations

import typing as t
from pathlib import Path

import pytest

from laguna.lang import functions
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry, read_package_dir


def write_package(directory: Path, name: str, format_version: str) -> Path:
    package = directory / name
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        f"Format: {format_version}\nType: Library\nFullName: {name}\n"
        f"Classes:\n  {name}.Answer: Answer.yaml\n")
    (package / "Classes" / "Answer.yaml").write_text(
        f"Namespaces:\n  =: {name}\nName: Answer\n"
        "Methods:\n  answer:\n    Body:\n      - Return: 6 * 7\n")
    return package


@pytest.fixture()
def built(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The flavours whose root context executors build, in order."""
    flavours: list[bool] = []
    real = functions.engine_context

    def engine_context(table: functions.FunctionTable, legacy: bool) -> t.Any:
        flavours.append(legacy)
        return real(table, legacy)

    monkeypatch.setattr(functions, "engine_context", engine_context)
    return flavours


def test_root_context_of_each_flavour_is_built_on_first_use(
        tmp_path: Path, built: list[bool]) -> None:
    registry = core_registry()
    registry.add(read_package_dir(write_package(tmp_path, "current.pkg", "1.4")))
    registry.add(read_package_dir(write_package(tmp_path, "legacy.pkg", "1.0")))
    executor = Executor(registry)
    assert built == []
    current = executor.new_object(registry.find("current.pkg.Answer"), None, {})
    assert executor.call(current, "answer") == 42
    assert executor.call(current, "answer") == 42
    assert built == [False]
    legacy = executor.new_object(registry.find("legacy.pkg.Answer"), None, {})
    assert executor.call(legacy, "answer") == 42
    assert built == [False, True]
