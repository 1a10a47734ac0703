"""Errors of the command line itself: an option or an output it cannot use.

::

    click.ClickException
     +-- CommandError        printed as ``error[CODE]: message [KIND]``, exit status 1
                             (a LagunaError as well)
          +-- OutputError    a file the command writes cannot be written
          +-- CatalogError   --db-url (or $LAGUNA_DATABASE_URL) is not a usable catalog
          +-- AddressInUse   `laguna serve` cannot listen where it is told to
          +-- ApiUnusable    a remote API (`status --watch --api`) refused or is unreachable

Every error a command prints has the shape of the others
(``[FILE:LINE:COL: ]error[CODE]: [ENTITY: ]message [KIND]``, docs/ERRORS.md),
never a Python traceback.
"""

from __future__ import annotations

import typing as t

import click

from laguna.errors import LagunaError
from laguna.source import render

INVALID_VALUE = "LAG-E1300"
OUTPUT_UNWRITABLE = "LAG-E1301"
CATALOG_UNUSABLE = "LAG-E1302"
NO_TEST_MATCHES = "LAG-E1303"
ADDRESS_IN_USE = "LAG-E1304"
API_UNUSABLE = "LAG-E1305"


def described(error: LagunaError, base: str | None = None) -> str:
    """``error`` in the one shape of every problem a command prints
    (:func:`laguna.source.render`, docs/ERRORS.md), one line a problem: a
    validation's every problem, an error in a file at its place, any other
    error without one. Places in a package are shown under ``base``, the
    package's path, when given."""
    return "\n".join(render(p, base) for p in error.as_problems())


class CommandError(click.ClickException, LagunaError):
    """A command-line value the command cannot use (a ClickException as well, so
    that click prints it and exits with its ``exit_code``)."""

    code = INVALID_VALUE
    exit_code = 1

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"

    def show(self, file: t.IO[t.Any] | None = None) -> None:
        click.echo(described(self), err=file is None, file=file)


class OutputError(CommandError):
    code = OUTPUT_UNWRITABLE


class CatalogError(CommandError):
    code = CATALOG_UNUSABLE


class AddressInUse(CommandError):
    code = ADDRESS_IN_USE


class ApiUnusable(CommandError):
    """A remote API refused or could not be reached (exit status 2, as the
    original client's errors)."""

    code = API_UNUSABLE
    exit_code = 2
