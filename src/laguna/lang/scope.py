"""Scopes (yaql contexts) and frames of running MuranoPL code.

A :class:`Scope` is a yaql context, so yaql's own functions can evaluate
lambdas and read variables through it; laguna adds two Python attributes
that every child scope inherits: the :class:`Frame` of the running method
and, while a contract is checked, the contract's state.
"""

from __future__ import annotations

import typing as t

from yaql.language import contexts, utils

from laguna.yaql import engine as yaql_engine

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor
    from laguna.lang.types import Method, MuranoClass
    from laguna.source import Span

NO_VALUE = utils.NO_VALUE


class Frame:
    """One MuranoPL method activation: who runs, where, called from where."""

    __slots__ = ("executor", "this", "method", "cls", "caller", "span", "instruction",
                 "locals", "allow_writes", "exception", "depth")

    def __init__(self, executor: Executor, this: t.Any, method: Method | None,
                 cls: MuranoClass, caller: Frame | None, allow_writes: bool = False) -> None:
        self.executor = executor
        self.this = this
        self.method = method
        self.cls = cls            # the class whose namespaces resolve names here
        self.caller = caller
        self.span: Span | None = None
        self.instruction: str | None = None
        self.locals: Scope | None = None
        self.allow_writes = allow_writes
        self.exception: t.Any = None
        self.depth: int = 0 if caller is None else caller.depth + 1


class Scope(contexts.Context):  # type: ignore[misc]
    """A yaql context that carries the running frame.

    Local variables are written through :meth:`set_local` and :meth:`set_this`
    and read through :func:`lookup`: these, the scope builders here, and their
    inlined copies in the hottest paths (a compiled variable read, a
    `$x: ...` assignment, a For variable, the reads of generated code,
    lang/codegen.py) are the only places laguna touches yaql's private
    ``_data`` (yaql's ``context[name] = value`` normalises the name and
    checks it on every write, which assignments in loops pay for).
    """

    def __init__(self, parent_context: t.Any = None, data: t.Any = NO_VALUE,
                 convention: t.Any = None) -> None:
        super().__init__(parent_context, data, convention)
        self.frame: Frame | None = getattr(parent_context, "frame", None)
        self.contract: t.Any = getattr(parent_context, "contract", None)

    def create_child_context(self) -> Scope:
        return Scope(self)

    def set_local(self, name: str, value: t.Any) -> None:
        """Bind variable ``name`` (already normalised: '$x', '$1') in this scope."""
        self._data[name] = value

    def set_this(self, this: t.Any) -> None:
        """Bind `$this` and `$` (`$1`), as a method body or an expression on
        an object sees them."""
        data = self._data
        data["$1"] = this
        data["$this"] = this


def engine_of(scope: t.Any, legacy: bool) -> t.Any:
    """The yaql engine of the executor running ``scope``: compiled code is
    shared by every executor, but each applies its own limits (collection
    sizes, memory)."""
    frame = getattr(scope, "frame", None)
    if frame is None:
        return yaql_engine.create_engine(legacy)
    return frame.executor.yaql_engines[legacy]


_new_scope = object.__new__


def item_scope(parent: t.Any, item: t.Any) -> Scope:
    """A child of ``parent`` with `$` (`$1`) bound to ``item``: what a yaql
    lambda (`select($ * 2)`) sees for one item, one fresh context per call as
    yaql makes it. Built without yaql's constructor chain, which a query pays
    on every item."""
    if type(parent) is not Scope:
        child = Scope(parent)
        child._data["$1"] = item
        return child
    child = _new_scope(Scope)
    child._parent_context = parent
    child._convention = parent._convention
    child._functions = {}
    child._data = {"$1": item}
    child._exclusive_funcs = set()
    child.frame = parent.frame
    child.contract = parent.contract
    return child


def child_scope(parent: t.Any, data: dict[str, t.Any]) -> Scope:
    """``Scope(parent)`` holding the variables ``data`` (names normalised),
    built without yaql's constructor chain: what every method call and
    contract check makes."""
    child = _new_scope(Scope)
    child._parent_context = parent
    child._convention = parent.convention if parent else None
    child._functions = {}
    child._data = data
    child._exclusive_funcs = set()
    child.frame = getattr(parent, "frame", None)
    child.contract = getattr(parent, "contract", None)
    return child


def method_scope(root: t.Any, data: dict[str, t.Any], frame: Frame) -> Scope:
    """The scope of one method activation: ``child_scope(root, data)`` running
    ``frame``, for a root scope of the executor (no contract), in one call."""
    child = _new_scope(Scope)
    child._parent_context = root
    child._convention = root._convention
    child._functions = {}
    child._data = data
    child._exclusive_funcs = set()
    child.frame = frame
    child.contract = None
    return child


def lookup(scope: t.Any, name: str) -> t.Any:
    """Read variable ``name`` (already normalised: '$x', '$1') up the scope chain."""
    ctx = scope
    while ctx is not None:
        data = getattr(ctx, "_data", None)
        if data is None:
            value = ctx.get_data(name, NO_VALUE, False)
            if value is not NO_VALUE:
                return value
        elif name in data:
            return data[name]
        ctx = ctx._parent_context
    return None


def local_values(context: t.Any) -> t.Iterable[t.Any]:
    """The values of the variables bound in one yaql context (its parents'
    not included); what the garbage collector follows from a running frame."""
    data = getattr(context, "_data", None)
    return data.values() if isinstance(data, dict) else ()


def normalize_name(name: str) -> str:
    if not name.startswith("$"):
        name = "$" + name
    if name == "$":
        name = "$1"
    return name
