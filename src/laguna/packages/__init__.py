"""Packages: versions, manifests, package files and archives, and package sources."""

from laguna.packages.archive import ArchiveLimits, build_archive, extract_archive, read_archive
from laguna.packages.check import Checker, CheckResult, check_package, check_path, register_checker
from laguna.packages.errors import (
    ArchiveError,
    PackageError,
    PackageFormatError,
    PackageLoadError,
    PackageNotFoundError,
    VersionError,
)
from laguna.packages.manifest import (
    CORE_LIBRARY,
    FormatVersion,
    Manifest,
    PackageType,
    load_manifest,
    validate_manifest,
)
from laguna.packages.package import Package, load_archive, load_directory, load_package
from laguna.packages.source import (
    ChainSource,
    ClassIndexedSource,
    DirectorySource,
    MemorySource,
    PackageSource,
    packages_with_class,
    resolve,
)
from laguna.packages.versions import (
    Requirement,
    Version,
    parse_requirement,
    parse_version,
    same_major,
    same_major_requirement,
)

__all__ = [
    "CORE_LIBRARY",
    "ArchiveError",
    "ArchiveLimits",
    "ChainSource",
    "ClassIndexedSource",
    "CheckResult",
    "Checker",
    "DirectorySource",
    "FormatVersion",
    "Manifest",
    "MemorySource",
    "Package",
    "PackageError",
    "PackageFormatError",
    "PackageLoadError",
    "PackageNotFoundError",
    "PackageSource",
    "PackageType",
    "Requirement",
    "Version",
    "VersionError",
    "build_archive",
    "check_package",
    "check_path",
    "extract_archive",
    "load_archive",
    "load_directory",
    "load_manifest",
    "load_package",
    "packages_with_class",
    "parse_requirement",
    "parse_version",
    "register_checker",
    "read_archive",
    "resolve",
    "same_major",
    "same_major_requirement",
    "validate_manifest",
]
