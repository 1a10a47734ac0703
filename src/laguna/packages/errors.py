"""Errors of package handling, and the codes of every package diagnostic.

::

    LagunaError
     +-- PackageError              root of this package; has .code
     |    +-- VersionError         a version or a requirement cannot be parsed
     |    +-- PackageLoadError     a package's file is missing or cannot be read
     |    +-- ArchiveError         a zip archive is unsafe or broken (.entry)
     |    +-- PackageNotFoundError no package/version of that name (.name, .version)
     +-- SourceErrors
          +-- PackageFormatError   the manifest is invalid (.diagnostics)

Codes (``LAG-E05xx``; warnings ``LAG-W05xx``) are stable; tests and users
tell problems apart by them.
"""

from __future__ import annotations

from laguna.errors import LagunaError, SourceErrors
from laguna.source import Diagnostic, Span

# versions
INVALID_VERSION = "LAG-E0501"
INVALID_REQUIREMENT = "LAG-E0502"
# manifest
MANIFEST_NOT_MAPPING = "LAG-E0510"
UNSUPPORTED_FORMAT = "LAG-E0511"
MISSING_FIELD = "LAG-E0512"
INVALID_TYPE = "LAG-E0513"
INVALID_FULL_NAME = "LAG-E0514"
WRONG_VALUE_KIND = "LAG-E0515"
INVALID_CLASS_ENTRY = "LAG-E0516"
MANIFEST_YAML = "LAG-E0517"
UNKNOWN_FIELD = "LAG-W0519"
# package contents
MANIFEST_MISSING = "LAG-E0530"
CLASS_FILE_MISSING = "LAG-E0531"
CLASS_NOT_DEFINED = "LAG-E0532"
UNSAFE_PATH = "LAG-E0533"
RESOURCE_MISSING = "LAG-E0534"
UI_INVALID = "LAG-E0535"
LOGO_MISSING = "LAG-E0536"
DUPLICATE_CLASS = "LAG-E0537"
CLASS_FILE_INVALID = "LAG-E0538"
NOT_A_PACKAGE = "LAG-E0539"
# archives
NOT_A_ZIP = "LAG-E0550"
ARCHIVE_UNSAFE_PATH = "LAG-E0551"
ARCHIVE_SYMLINK = "LAG-E0552"
ARCHIVE_TOO_MANY_ENTRIES = "LAG-E0553"
ARCHIVE_ENTRY_TOO_LARGE = "LAG-E0554"
ARCHIVE_TOO_LARGE = "LAG-E0555"
ARCHIVE_CORRUPT = "LAG-E0556"
ARCHIVE_DUPLICATE_ENTRY = "LAG-E0557"
# sources
PACKAGE_NOT_FOUND = "LAG-E0560"


class PackageError(LagunaError):
    """Something is wrong with a package or with finding one."""

    code = "LAG-E0590"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"


class VersionError(PackageError, ValueError):
    """A version or a version requirement is not valid."""

    code = INVALID_VERSION


class PackageLoadError(PackageError):
    """A file the package needs is missing, unsafe or unreadable."""

    code = MANIFEST_MISSING


class ArchiveError(PackageError):
    """A zip archive was refused; ``entry`` names the offending member, if any."""

    code = NOT_A_ZIP

    def __init__(self, message: str, code: str | None = None, entry: str | None = None,
                 reason: str | None = None) -> None:
        super().__init__(message, code)
        self.entry = entry
        #: the message without the entry's name, for a report located at the entry
        self.reason = reason or message

    def as_problems(self) -> list[Diagnostic]:
        """At the offending entry, when there is one."""
        if self.entry is not None and self.reason != self.message:
            return [Diagnostic(Span(self.entry, 1, 1), self.code, self.reason)]
        return super().as_problems()


class PackageNotFoundError(PackageError):
    """No package of that name, or no version of it that fits."""

    code = PACKAGE_NOT_FOUND

    def __init__(self, name: str, version: str | None = None) -> None:
        what = f"package {name!r}" if version is None else f"package {name!r} version {version}"
        super().__init__(f"{what} not found")
        self.name = name
        self.version = version


class PackageFormatError(SourceErrors, PackageError):
    """The manifest (or another package file) breaks the format; lists every problem."""

    code = "LAG-E0510"
