"""The functions MuranoPL code calls by name, registered explicitly.

:mod:`.table` holds the :class:`FunctionTable` of built-ins and fast paths
that the compiler resolves names against, built from a list of modules that
each end with ``register(table)`` (:data:`LANGUAGE_MODULES`, and
``laguna.corelib.FUNCTION_MODULES`` for a real engine).

Above the yaql root contexts an executor builds from that table sit the
YAQL functions the original engine added for every package, one module per concept, each ending with ``register(context, ...)`` in the
style of yaql's standard library:

- :mod:`.murano`: data functions every package gets (``base64encode``,
  ``bind``, ``patch``, ``pselect``, ``randomName`` ...);
- :mod:`.host`: functions answered by the host running the engine
  (``config``, ``decryptData``), through a :class:`~.host.Host`;
- :mod:`.legacy`: what packages of Format 1.0 and 1.1 also get;
- :mod:`.guarded`: yaql's functions that could outgrow the sandbox (regular
  expressions, ``pow``, ``join`` ...), in place of yaql's, under its limits.

:func:`register` puts them in a layer of their own above a root context, as
the original engine linked its function context to yaql's root: names found
there win over yaql's, which matters for the legacy extension methods.
"""

from __future__ import annotations

import typing as t

from laguna.lang.functions import guarded, host, legacy, murano
from laguna.lang.functions.host import Host
from laguna.lang.functions.table import (
    LANGUAGE_MODULES, FunctionModule, FunctionTable, build_table, language_functions,
)

__all__ = ["FunctionModule", "FunctionTable", "Host", "LANGUAGE_MODULES", "build_table",
           "engine_context", "language_functions", "register"]


def engine_context(table: FunctionTable, legacy_mode: bool) -> t.Any:
    """The context every scope of an executor descends from: ``table``'s root
    context with the engine's functions above it (:func:`register`).

    Built once per table and flavour (yaql's standard library takes a tenth
    of a second to register) and shared by every executor: scopes are its
    children and nothing writes into it; what differs between executors
    (the host, limits) is reached through the running frame."""
    context = table.contexts.get(legacy_mode)
    if context is None:
        context = register(table.root_context(legacy_mode), legacy_mode)
        table.contexts[legacy_mode] = context
    return context


def register(context: t.Any, legacy_mode: bool) -> t.Any:
    """A child of ``context`` (a yaql root context) holding the engine's functions."""
    layer = context.create_child_context()
    guarded.register(layer, skip=legacy.EXTENDED_NAMES if legacy_mode else ())
    murano.register(layer)
    host.register(layer)
    if legacy_mode:
        legacy.register(layer, context)
    return layer
