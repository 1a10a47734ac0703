"""Static actions: a static method marked as action, called by class name with
JSON parameters and answering JSON, outside any environment.

The engine side of the API's ``POST /v1/actions``. Each call is one executor
over the core library and the given package sources (the catalog), with no
cloud and no agents, as the original engine ran a static action: synchronously
and on its own. What goes wrong is a :class:`StaticActionError` whose
``kind`` says whose fault it was, in the original engine's three answers:

===============  ==============================================================
kind             when
===============  ==============================================================
``not_found``    no package or class, no such method, a method that is not a
                 static action, an argument name the method does not have
``invalid``      a parameter the method's contract refuses, a version
                 requirement that does not parse
``failed``       the method raised (a MuranoPL exception, a limit crossed),
                 a package that does not load
===============  ==============================================================
"""

from __future__ import annotations

import typing as t

from laguna.corelib.services import NoServices, attach
from laguna.errors import LagunaError
from laguna.lang import errors
from laguna.lang.executor import Executor
from laguna.lang.resolution import NoPackageFound
from laguna.packages.errors import VersionError
from laguna.packages.source import PackageSource
from laguna.testing.packages import core_registry
from laguna.yaql.engine import DEFAULT_LIMITS, Limits

NOT_FOUND = "not_found"
INVALID = "invalid"
FAILED = "failed"

#: the version a call without ``classVersion`` asks for, as the original's API
#: defaulted it: any 0.x version
DEFAULT_CLASS_VERSION = "=0"

# MuranoPL names of the errors of the call itself (not of code it ran), by kind
_CALL_ERRORS = {
    "murano.dsl.exceptions.NoMethodFound": NOT_FOUND,
    "murano.dsl.exceptions.MethodNotExposed": NOT_FOUND,
    "yaql.language.exceptions.NoMatchingMethodException": NOT_FOUND,
    "murano.dsl.exceptions.ContractViolationException": INVALID,
}


class StaticActionError(LagunaError):
    """A static action could not be called, or raised."""

    code = "LAG-E1020"

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message


def call_static_action(sources: t.Sequence[PackageSource], class_name: str, method: str,
                       parameters: t.Mapping[str, t.Any] | None = None,
                       package_name: str | None = None,
                       class_version: str | None = None,
                       limits: Limits = DEFAULT_LIMITS) -> t.Any:
    """Call static action ``method`` of ``class_name`` with keyword ``parameters``
    and answer its result as JSON data. The class comes from package
    ``package_name`` if given, else from the package that defines it, in the
    highest version matching ``class_version`` (default ``=0``, as the
    original: any 0.x version). The call runs under ``limits``."""
    executor = Executor(core_registry(*sources), limits=limits)
    attach(executor, NoServices())
    try:
        outcome = executor.run_static_action(
            class_name, method, parameters, package=package_name or None,
            version=class_version or DEFAULT_CLASS_VERSION)
    except VersionError as error:
        raise StaticActionError(INVALID, error.message) from error
    except (errors.NoClassFound, NoPackageFound, errors.NoMethodFound,
            errors.MethodNotExposed) as error:
        raise StaticActionError(NOT_FOUND, str(error)) from error
    except LagunaError as error:     # a package or class that does not load
        raise StaticActionError(FAILED, str(error)) from error
    failure = outcome.error
    if failure is not None:
        # binding the parameters fails before any MuranoPL frame opens; what the
        # method's own code raised is the method's failure
        kind = _CALL_ERRORS.get(failure.names[0], FAILED) \
            if not failure.frames and failure.names else FAILED
        message = failure.message if kind != FAILED else str(failure)
        raise StaticActionError(kind, message) from failure
    return outcome.result
