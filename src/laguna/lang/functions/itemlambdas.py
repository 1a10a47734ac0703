"""The lambdas of query functions (`where($.value > 10)`, `orderBy($.name)`),
run on each item of a collection.

yaql gives each item a fresh child context holding `$`, and so do the direct
query functions by default: a lambda may keep its context alive past the
call (a lazy `$.where(...)` inside it reads `$` later). A lambda whose
expression can keep nothing, one made only of constants, variable reads,
operators, attribute and index reads, lists and dictionaries (no function
or method call, which might return something lazy over its context), is
run instead on one child scope per query call, `$` rebound for each item:
the same values, without a context made per item.
"""

from __future__ import annotations

import typing as t
import weakref

from yaql.language import expressions as ast

from laguna.lang.codegen import MISSED, Maker, item_code, missed
from laguna.lang.scope import item_scope

if t.TYPE_CHECKING:
    from laguna.lang.compiler import Compiler, Fn

Key = t.Callable[[t.Any], t.Any]

# operators whose compiled form reads its operands and keeps nothing
_KEEPING_NOTHING = frozenset((
    "+", "-", "*", "/", "mod", "<", ">", "<=", ">=", "=", "!=", "and", "or", "not", "in"))
# compiled item lambdas that keep nothing of their scope (function objects
# are the compiler's closures, shared through its statement cache)
_SCOPE_FREE: weakref.WeakSet[t.Callable[..., t.Any]] = weakref.WeakSet()
# compiled item lambdas that also have a generated form (lang/codegen.py)
_GENERATED: weakref.WeakKeyDictionary[t.Callable[..., t.Any], Maker] = (
    weakref.WeakKeyDictionary())


def keeps_nothing(node: t.Any) -> bool:
    """Whether the value of the yaql expression ``node`` can hold nothing of
    the context it was computed in."""
    kind = type(node)
    if kind in (ast.Constant, ast.KeywordConstant, ast.GetContextValue):
        return True
    if kind is ast.Wrap:
        return keeps_nothing(node.expr)
    if kind in (ast.BinaryOperator, ast.UnaryOperator):
        if node.operator in (".", "?."):
            receiver, member = node.args
            return type(member) is ast.KeywordConstant and keeps_nothing(receiver)
        return node.operator in _KEEPING_NOTHING and all(keeps_nothing(a) for a in node.args)
    if kind in (ast.IndexExpression, ast.ListExpression):
        return all(keeps_nothing(a) for a in node.args)
    if kind is ast.MapExpression:
        return all(type(a) is ast.MappingRuleExpression and keeps_nothing(a.source)
                   and keeps_nothing(a.destination) for a in node.args)
    return False


def compile_lambda(compiler: Compiler, node: t.Any) -> Fn:
    """``compiler.node(node)``, remembered as scope-free when it keeps
    nothing, and with its generated form when it has one."""
    fn = compiler.node(node)
    if keeps_nothing(node):
        _SCOPE_FREE.add(fn)
    if fn not in _GENERATED:
        maker = item_code(compiler, node)
        if maker is not None:
            _GENERATED[fn] = maker
    return fn


def item_lambda(fn: Fn, scope: t.Any) -> Key:
    """``fn`` as a function of one item: `$` bound to the item in a child of
    ``scope``, one child per call, or one for every call of a scope-free
    lambda (:func:`compile_lambda`); its generated form first where it has
    one, that hands an item it does not take to those."""
    maker = _GENERATED.get(fn)
    general = general_lambda(fn, scope)
    return general if maker is None else maker(scope, general)


def item_probe(fn: Fn, scope: t.Any) -> Key | None:
    """``fn``'s generated form alone (None when it has none), giving
    :data:`MISSED` for an item it does not take: it is pure, so it may be
    run on items the query would not evaluate ``fn`` for, and its answer
    used only when every item gets one."""
    maker = _GENERATED.get(fn)
    return None if maker is None else maker(scope, missed)


def general_lambda(fn: Fn, scope: t.Any) -> Key:
    """``fn`` as a function of one item through its compiled closures only."""
    if fn in _SCOPE_FREE:
        child = item_scope(scope, None)
        data = child._data

        def reuse(item: t.Any) -> t.Any:
            data["$1"] = item
            return fn(child)
        return reuse

    def call(item: t.Any) -> t.Any:
        return fn(item_scope(scope, item))
    return call
