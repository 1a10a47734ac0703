"""Errors of the catalog store.

::

    LagunaError
     +-- StoreError                 root of the store's errors
          +-- DuplicatePackageError that name and version are already in the catalog

A missing package raises :class:`laguna.packages.errors.PackageNotFoundError`,
the same error every package source raises.
"""

from __future__ import annotations

from laguna.errors import LagunaError

DUPLICATE_PACKAGE = "LAG-E0570"


class StoreError(LagunaError):
    """The catalog refused an operation."""

    code = "LAG-E0571"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"


class DuplicatePackageError(StoreError):
    """A package with that fully qualified name and version is already imported."""

    code = DUPLICATE_PACKAGE

    def __init__(self, name: str, version: str) -> None:
        super().__init__(f"package {name} version {version} is already in the catalog")
        self.name = name
        self.version = version
