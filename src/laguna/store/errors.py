"""Errors of the catalog store.

::

    LagunaError
     +-- StoreError                 root of the store's errors
          +-- DuplicatePackageError that name and version are already in the catalog
          +-- CategoryNotFoundError no category of that id
          +-- UnknownCategoryError  a package names a category the catalog does not have
          +-- DuplicateCategoryError a category of that name exists
          +-- CategoryInUseError    packages still name the category

A missing package raises :class:`laguna.packages.errors.PackageNotFoundError`,
the same error every package source raises.
"""

from __future__ import annotations

from laguna.errors import LagunaError

DUPLICATE_PACKAGE = "LAG-E0570"
CATEGORY_NOT_FOUND = "LAG-E0572"
UNKNOWN_CATEGORY = "LAG-E0573"
DUPLICATE_CATEGORY = "LAG-E0574"
INVALID_CURSOR = "LAG-E0576"
CATEGORY_IN_USE = "LAG-E0575"


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


class CategoryNotFoundError(StoreError):
    """No category has that id."""

    code = CATEGORY_NOT_FOUND

    def __init__(self, category_id: str) -> None:
        super().__init__(f"no category has id {category_id!r}")
        self.category_id = category_id


class UnknownCategoryError(StoreError):
    """A package was given a category the catalog does not define."""

    code = UNKNOWN_CATEGORY

    def __init__(self, name: str) -> None:
        super().__init__(f"category {name!r} does not exist")
        self.name = name


class DuplicateCategoryError(StoreError):
    """A category of that name is already defined."""

    code = DUPLICATE_CATEGORY

    def __init__(self, name: str) -> None:
        super().__init__(f"category {name!r} already exists")
        self.name = name


class CategoryInUseError(StoreError):
    """A category cannot be deleted while packages name it."""

    code = CATEGORY_IN_USE

    def __init__(self, name: str, count: int) -> None:
        super().__init__(f"category {name!r} is assigned to {count} package(s)")
        self.name = name
        self.count = count
