"""The functions MuranoPL code calls by name, registered explicitly.

yaql builds its standard library by calling one ``register(context)`` per
module (``yaql.create_context``); laguna does the same for its own functions.
Each module that defines functions ends with ``register(table)``, and
whoever builds an engine builds one :class:`FunctionTable` from a list of
such modules:

- :data:`LANGUAGE_MODULES` here: the language's own functions (`new()`,
  `id()`, `format()`...) and the compiler's fast paths of yaql functions;
- ``laguna.corelib.FUNCTION_MODULES``: those plus the core library's
  functions (`logger()`); this is the table of a real engine
  (``laguna.testing.packages.core_registry``).

A new function module adds its ``register`` to one of these lists. The table
goes to the :class:`~laguna.lang.classes.ClassRegistry`, whose compiler
resolves built-in names when a class is loaded, and from there to each
:class:`~laguna.lang.executor.Executor`, whose root yaql contexts get the
table's yaql functions. Tables are built once per list (compiled code is
cached per table).
"""

from __future__ import annotations

import functools
import types
import typing as t

from laguna.lang import builtins, dispatch
from laguna.lang.dispatch import Builtin
from laguna.lang.functions import dicts, guarded, queries, strings, values
from laguna.yaql import engine as yaql_engine


class FunctionTable:
    """Built-ins (MuranoPL functions and methods written in Python), fast
    paths for yaql's own functions, and plain yaql functions."""

    def __init__(self) -> None:
        #: `name(...)` calls
        self.functions: dict[str, Builtin] = {}
        #: `$x.name(...)` calls on values that have no MuranoPL method of that name
        self.methods: dict[str, Builtin] = {}
        #: yaql functions with a direct path (non-legacy engines only); a fast
        #: function returns NO_VALUE to send unusual arguments to yaql itself
        self.fast_functions: dict[str, t.Callable[..., t.Any]] = {}
        #: method forms with a direct path: built at compile time from the arguments
        self.fast_methods: dict[str, t.Callable[..., t.Any]] = {}
        #: function forms compiled whole (non-legacy engines only): built at
        #: compile time from the argument nodes, None to leave the call to yaql
        self.compiled_functions: dict[str, t.Callable[..., t.Any]] = {}
        self._yaql_functions: list[tuple[t.Any, tuple[t.Any, ...], dict[str, t.Any]]] = []
        #: contexts built from this table and shared by executors (legacy flag ->
        #: context, see ``lang.functions.engine_context``); a new yaql function drops them
        self.contexts: dict[bool, t.Any] = {}

    def add_builtin(self, fn: t.Callable[..., t.Any]) -> None:
        """Register ``fn`` under the name and forms its ``@dispatch.builtin``
        decorator gave it."""
        spec: dispatch.BuiltinSpec = getattr(fn, dispatch.BUILTIN_SPEC)
        entry = Builtin(fn, spec.lazy)
        if spec.function:
            self.functions[spec.name] = entry
        if spec.method:
            self.methods[spec.name] = entry

    def add_fast_function(self, name: str, fn: t.Callable[..., t.Any]) -> None:
        self.fast_functions[name] = fn

    def add_fast_method(self, name: str, fn: t.Callable[..., t.Any]) -> None:
        self.fast_methods[name] = fn

    def add_compiled_function(self, name: str, factory: t.Callable[..., t.Any]) -> None:
        self.compiled_functions[name] = factory

    def register_function(self, spec: t.Any, *args: t.Any, **kwargs: t.Any) -> None:
        """A yaql function (``@specs`` decorated), registered in each root
        context an executor builds; same call as yaql's
        ``Context.register_function``, so a module written for a yaql context
        registers here unchanged."""
        self._yaql_functions.append((spec, args, kwargs))
        self.contexts.clear()

    def root_context(self, legacy: bool) -> t.Any:
        """A fresh root context: yaql's standard library (legacy or not), its
        loops under the limits (:func:`guarded.bound_loops`), and this table's
        yaql functions."""
        context = yaql_engine.create_root_context(legacy)
        guarded.bound_loops(context)
        for spec, args, kwargs in self._yaql_functions:
            context.register_function(spec, *args, **kwargs)
        return context


class FunctionModule(t.Protocol):
    def register(self, table: FunctionTable) -> None: ...


#: the language's own function modules, in registration order
LANGUAGE_MODULES: tuple[types.ModuleType, ...] = (dispatch, builtins, queries, strings,
                                                  dicts, values)


def build_table(modules: t.Iterable[FunctionModule | types.ModuleType]) -> FunctionTable:
    """A table with the functions of each module (later modules win a name)."""
    table = FunctionTable()
    for module in modules:
        module.register(table)
    return table


@functools.cache
def language_functions() -> FunctionTable:
    """The table of :data:`LANGUAGE_MODULES` (a registry built without one)."""
    return build_table(LANGUAGE_MODULES)


__all__ = ["FunctionTable", "LANGUAGE_MODULES", "build_table", "language_functions"]
