"""Errors of the command line itself: an option or an output it cannot use.

::

    click.ClickException
     +-- CommandError        printed as ``error[CODE]: message``, exit status 1
          +-- OutputError    a file the command writes cannot be written
          +-- CatalogError   --db-url (or $LAGUNA_DATABASE_URL) is not a usable catalog
          +-- AddressInUse   `laguna serve` cannot listen where it is told to

Every error a command prints has the shape of the others
(``[FILE:LINE:COL: ]error[CODE]: message``, docs/ERRORS.md), never a Python
traceback.
"""

from __future__ import annotations

import typing as t

import click

from laguna.errors import LagunaError, SourceError, SourceErrors
from laguna.packages.errors import ArchiveError
from laguna.source import Span

INVALID_VALUE = "LAG-E1300"
OUTPUT_UNWRITABLE = "LAG-E1301"
CATALOG_UNUSABLE = "LAG-E1302"
NO_TEST_MATCHES = "LAG-E1303"
ADDRESS_IN_USE = "LAG-E1304"


def described(error: LagunaError, base: str | None = None) -> str:
    """``error`` in the common shape: errors that print their own code (source
    errors with their place, package errors) as they print, a validation's
    errors one line each, any other error with its code in front. Places in a
    package are shown under ``base``, the package's path, when given."""
    def place(span: Span) -> str:
        return f"{base.rstrip('/')}/{span}" if base else str(span)
    if isinstance(error, SourceErrors):
        return "\n".join(f"{place(d.span)}: {d.severity}[{d.code}]: {d.message}"
                         for d in error.diagnostics)
    if isinstance(error, SourceError) and error.span is not None:
        return f"{place(error.span)}: error[{error.code}]: {error.message}"
    if isinstance(error, ArchiveError) and error.entry is not None and error.reason != error.message:
        return f"{place(Span(error.entry, 1, 1))}: error[{error.code}]: {error.reason}"
    text = str(error)
    if f"[{error.code}]: " in text.split("\n", 1)[0]:
        return text
    message = getattr(error, "message", None) or text
    return f"error[{error.code}]: {message}"


class CommandError(click.ClickException):
    """A command-line value the command cannot use."""

    code = INVALID_VALUE
    exit_code = 1

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"

    def show(self, file: t.IO[t.Any] | None = None) -> None:
        click.echo(str(self), err=file is None, file=file)


class OutputError(CommandError):
    code = OUTPUT_UNWRITABLE


class CatalogError(CommandError):
    code = CATALOG_UNUSABLE


class AddressInUse(CommandError):
    code = ADDRESS_IN_USE
