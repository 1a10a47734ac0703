"""The MuranoPL core library (package io.murano): its class files, the
Python implementation of its native methods, and the function table of an
engine that runs it."""

from __future__ import annotations

import functools
import pathlib
import types

from laguna.corelib import logger
from laguna.corelib.native import bind_natives
from laguna.lang.functions import LANGUAGE_MODULES, FunctionTable, build_table

META_DIR = pathlib.Path(__file__).parent / "meta"
CORE_PACKAGE_DIR = META_DIR / "io.murano"
# the application framework library (Format 1.4, as the original shipped it);
# packages that require it get it from here when no other source has it
APPLICATIONS_PACKAGE_DIR = META_DIR / "io.murano.applications"

#: every module whose ``register(table)`` gives MuranoPL code functions, in
#: registration order: the language's, then the core library's. A new
#: function module is added here (or to lang's LANGUAGE_MODULES).
FUNCTION_MODULES: tuple[types.ModuleType, ...] = (*LANGUAGE_MODULES, logger)


@functools.cache
def functions() -> FunctionTable:
    """The function table of an engine running the core library (built once:
    compiled code is cached per table)."""
    return build_table(FUNCTION_MODULES)


__all__ = ["APPLICATIONS_PACKAGE_DIR", "CORE_PACKAGE_DIR", "FUNCTION_MODULES", "bind_natives",
           "functions"]
