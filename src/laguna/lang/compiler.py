"""Compile parsed YAQL into Python closures.

yaql parses; laguna evaluates. Walking yaql's own evaluator costs tens of
microseconds per operator because every operator is an overloaded function
looked up through the context chain. The compiler turns each node into a
closure ``fn(scope) -> value`` that takes a direct path for the cases
MuranoPL code hits all the time (arithmetic and comparison on numbers and
strings, variables, property reads, method calls on MuranoPL objects) and
hands every other case to yaql's own function resolution with the arguments
already compiled, so the result is always what yaql would have computed.
Type guards are exact (``type(x) is int``) because yaql treats bool apart
from int.
"""

from __future__ import annotations

import functools
import operator
import typing as t

from yaql.language import expressions as ast
from yaql.language import runner, utils

from laguna.lang import codegen, dispatch, limits
from laguna.lang.functions import FunctionTable, language_functions
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import NO_VALUE, Scope, engine_of, lookup, normalize_name

Fn = t.Callable[[t.Any], t.Any]

_NUMBERS = (int, float)
_ARITHMETIC: dict[str, t.Callable[[t.Any, t.Any], t.Any]] = {
    "#operator_+": operator.add,
    "#operator_-": operator.sub,
    "#operator_*": operator.mul,
}
_COMPARISON: dict[str, t.Callable[[t.Any, t.Any], t.Any]] = {
    "#operator_<": operator.lt,
    "#operator_>": operator.gt,
    "#operator_<=": operator.le,
    "#operator_>=": operator.ge,
}
_PLAIN_EQ_TYPES = frozenset((int, float, str, bool, type(None)))
# yaql's only `*equal` is Python's ==, and objects compare by identity: an
# object on either side (against another or a plain value) needs no yaql
_EQ_TYPES = _PLAIN_EQ_TYPES | {MuranoObject}
# below this, a sum or a product of two integers fits in 64 bits, the least
# integer_bits limit: no need to ask the limits
_SMALL_INT = 2 ** 31
# results a statement gives back as they are (dispatch.freeze keeps them)
_SCALARS = frozenset((int, float, str, bytes, bool, type(None), MuranoObject))


class CompiledArg(ast.Expression):  # type: ignore[misc]
    """A compiled sub-expression in the shape yaql expects of an argument."""

    def __init__(self, fn: Fn, source: t.Any) -> None:
        self.fn = fn
        self.source = source
        self.uses_receiver = False

    def __call__(self, receiver: t.Any, context: t.Any, engine: t.Any) -> t.Any:
        return self.fn(context)

    def __str__(self) -> str:
        return str(self.source)


_engine = engine_of
# every call through yaql counts as steps of work (limits.CALL_STEPS)
spend = limits.spend
CALL_STEPS = limits.CALL_STEPS


class Compiler:
    """Compiles the nodes of one parsed statement.

    ``contract`` switches on the contract methods (`$.int()`, `$.class(X)`...)
    that exist only inside Contract expressions; ``functions`` names the
    built-ins and fast paths (the language's own when not given).
    """

    def __init__(self, legacy: bool, contract: bool = False,
                 functions: FunctionTable | None = None) -> None:
        self.legacy = legacy
        self.contract = contract
        self.functions = functions if functions is not None else language_functions()
        # each node's closure, built once: the fast paths and the fallback of a
        # call each compile its arguments, and an argument is itself a call, so
        # compiling anew at each level would cost 2**depth or more
        # (`sequence().take(sequence().take(...))` ten levels deep took seconds)
        self._compiled: dict[int, tuple[t.Any, Fn]] = {}

    # -- entry points -----------------------------------------------------
    def statement(self, parsed: t.Any) -> Fn:
        node = parsed.expression if isinstance(parsed, ast.Statement) else parsed
        body = self.node(node)
        freeze = dispatch.freeze
        scalars = _SCALARS

        def run(scope: t.Any) -> t.Any:
            value = body(scope)
            if type(value) in scalars:   # what freeze gives back as it is, without its call
                return value
            return freeze(value)
        # one generated function where the statement is simple operations
        # (lang/codegen.py), this closure where its guards miss
        generated = codegen.statement_code(self, node, run)
        return run if generated is None else generated

    def node(self, node: t.Any) -> Fn:
        """The closure of ``node``, compiled once per compiler (a node is
        shared by the fast paths and the fallback that wrap it)."""
        known = self._compiled.get(id(node))
        if known is not None:
            return known[1]
        fn = self._node(node)
        # the node is kept with its closure: its id stays its own
        self._compiled[id(node)] = (node, fn)
        return fn

    def _node(self, node: t.Any) -> Fn:
        if isinstance(node, ast.KeywordConstant) or isinstance(node, ast.Constant):
            value = node.value
            return lambda scope: value
        if isinstance(node, ast.Wrap):
            return self.node(node.expr)
        if isinstance(node, ast.Statement):
            return self.node(node.expression)
        if isinstance(node, ast.GetContextValue):
            return self._variable(node)
        if isinstance(node, ast.BinaryOperator):
            return self._binary(node)
        if isinstance(node, ast.UnaryOperator):
            return self._unary(node)
        if isinstance(node, ast.ListExpression):
            items = [self.node(arg) for arg in node.args]
            return lambda scope: tuple(item(scope) for item in items)
        if isinstance(node, ast.MapExpression):
            return self._map(node)
        if isinstance(node, ast.IndexExpression):
            return self._index(node)
        if isinstance(node, ast.Function):
            return self._function(node, None)
        if isinstance(node, ast.MappingRuleExpression):
            source, destination = self.node(node.source), self.node(node.destination)
            return lambda scope: utils.MappingRule(source(scope), destination(scope))
        raise TypeError(f"cannot compile yaql node {node!r}")

    # -- helpers ----------------------------------------------------------
    def arg(self, node: t.Any) -> t.Any:
        """An argument for yaql's resolver: compiled, but still an Expression."""
        if isinstance(node, ast.MappingRuleExpression):
            # a keyword source names a parameter and must reach yaql as it is;
            # any other source is a value (switch's conditions) and is compiled,
            # so it reads objects the way every other expression does
            source = node.source
            if not isinstance(source, ast.KeywordConstant):
                source = self.arg(source)
            return ast.MappingRuleExpression(source, self.arg(node.destination))
        if isinstance(node, ast.Constant):
            return node
        return CompiledArg(self.node(node), node)

    def fallback(self, name: str, arg_nodes: t.Sequence[t.Any]) -> t.Callable[..., t.Any]:
        """Call ``name`` through yaql with compiled arguments; returns f(scope, receiver)."""
        args = tuple(self.arg(a) for a in arg_nodes)
        legacy = self.legacy

        def call(scope: t.Any, receiver: t.Any = NO_VALUE) -> t.Any:
            spend(CALL_STEPS)
            return runner.call(name, scope, args, {}, _engine(scope, legacy), receiver, scope)
        return call

    def _values_fallback(self, name: str) -> t.Callable[..., t.Any]:
        """Call ``name`` through yaql with values already computed."""
        legacy = self.legacy

        def call(scope: t.Any, *values: t.Any) -> t.Any:
            spend(CALL_STEPS)
            args = tuple(ast.Constant(v) for v in values)
            return runner.call(name, scope, args, {}, _engine(scope, legacy), NO_VALUE, scope)
        return call

    def _variable(self, node: t.Any) -> Fn:
        name = normalize_name(node.path.value)

        def variable(scope: t.Any) -> t.Any:
            # the scope's own variables first, without a call (lookup's first step)
            if type(scope) is Scope:
                data = scope._data
                if name in data:
                    return data[name]
            return lookup(scope, name)
        return variable

    def _map(self, node: t.Any) -> Fn:
        pairs = []
        for arg in node.args:
            if not isinstance(arg, ast.MappingRuleExpression):
                raise TypeError("map items must be key => value")
            pairs.append((self.node(arg.source), self.node(arg.destination)))

        def build(scope: t.Any) -> t.Any:
            return utils.FrozenDict((k(scope), v(scope)) for k, v in pairs)
        return build

    def _index(self, node: t.Any) -> Fn:
        if len(node.args) != 2:
            slow = self.fallback("#indexer", node.args)
            return lambda scope: slow(scope)
        collection, index = self.node(node.args[0]), self.node(node.args[1])
        slow_values = self._values_fallback("#indexer")

        def indexer(scope: t.Any) -> t.Any:
            c = collection(scope)
            i = index(scope)
            tc = type(c)
            if (tc is tuple or tc is list) and type(i) is int:
                return c[i]
            if tc is utils.FrozenDict or tc is dict:
                return c[i]
            return slow_values(scope, c, i)
        return indexer

    def _unary(self, node: t.Any) -> Fn:
        op = node.operator
        if op == ":":
            name = node.args[0].value
            return lambda scope: dispatch.resolve_type_ref(scope, "", name)
        operand = self.node(node.args[0])
        if op == "not":
            return lambda scope: not operand(scope)
        slow = self._values_fallback(node.name)
        if op == "-":
            def negate(scope: t.Any) -> t.Any:
                v = operand(scope)
                if type(v) is int or type(v) is float:
                    return -v
                return slow(scope, v)
            return negate
        if op == "+":
            def plus(scope: t.Any) -> t.Any:
                v = operand(scope)
                if type(v) is int or type(v) is float:
                    return v
                return slow(scope, v)
            return plus
        return lambda scope: slow(scope, operand(scope))

    def _binary(self, node: t.Any) -> Fn:
        op, name = node.operator, node.name
        left_node, right_node = node.args
        if op == ".":
            return self._dot(left_node, right_node)
        if op == "?.":
            return self._dot(left_node, right_node, null_safe=True)
        if op == ":":
            prefix, short = left_node.value, right_node.value
            return lambda scope: dispatch.resolve_type_ref(scope, prefix, short)
        left, right = self.node(left_node), self.node(right_node)
        if op == "and":
            return lambda scope: left(scope) and right(scope)
        if op == "or":
            return lambda scope: left(scope) or right(scope)
        if op == "is":
            return lambda scope: dispatch.is_instance(scope, left(scope), right(scope))
        slow = self._values_fallback(name)
        if name in _ARITHMETIC:
            py = _ARITHMETIC[name]
            is_plus = op == "+"
            is_times = op == "*"

            def arithmetic(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                ta, tb = type(a), type(b)
                if (ta is int or ta is float) and (tb is int or tb is float):
                    if ta is int and tb is int and not (
                            -_SMALL_INT < a < _SMALL_INT and -_SMALL_INT < b < _SMALL_INT):
                        limits.check_bits(limits.of(scope), a.bit_length() + b.bit_length()
                                          if is_times else max(a.bit_length(),
                                                               b.bit_length()) + 1)
                    return py(a, b)
                if is_plus:
                    if ta is str and tb is str:
                        limits.check_string(limits.of(scope), len(a) + len(b))
                        return a + b
                    if ta is tuple and tb is tuple:
                        limits.check_items(limits.of(scope), len(a) + len(b))
                        return a + b
                elif is_times and ((ta is str and tb is int) or (ta is int and tb is str)):
                    # yaql checks the string against the quota; the run's
                    # memory is asked here, as for any large value
                    limits.check_run_memory(len(a) * b if ta is str else a * len(b))
                return slow(scope, a, b)
            return arithmetic
        if op == "/":
            def divide(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                ta, tb = type(a), type(b)
                if ta is int and tb is int:
                    return a // b
                if (ta is int or ta is float) and (tb is int or tb is float):
                    return a / b
                return slow(scope, a, b)
            return divide
        if op == "mod":
            def modulo(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                if type(a) is int and type(b) is int:
                    return a % b
                return slow(scope, a, b)
            return modulo
        if name in _COMPARISON:
            py = _COMPARISON[name]

            def compare(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                ta, tb = type(a), type(b)
                if ((ta is int or ta is float) and (tb is int or tb is float)) or (
                        ta is str and tb is str):
                    return py(a, b)
                return slow(scope, a, b)
            return compare
        if op in ("=", "!="):
            negate = op == "!="

            def equality(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                if type(a) in _EQ_TYPES and type(b) in _EQ_TYPES:
                    return (a != b) if negate else (a == b)
                return slow(scope, a, b)
            return equality
        if op == "in":
            def contains(scope: t.Any) -> t.Any:
                a = left(scope)
                b = right(scope)
                if type(b) is tuple and type(a) in _PLAIN_EQ_TYPES:
                    return a in b
                return slow(scope, a, b)
            return contains
        return lambda scope: slow(scope, left(scope), right(scope))

    def _dot(self, left_node: t.Any, right_node: t.Any, null_safe: bool = False) -> Fn:
        """`a.b`, `a.b(...)` and, with ``null_safe``, `a?.b`: null when `a` is null."""
        receiver = self.node(left_node)
        operator = "#operator_?." if null_safe else "#operator_."
        if isinstance(right_node, ast.KeywordConstant):
            name = right_node.value
            legacy = self.legacy

            def slow(scope: t.Any, value: t.Any) -> t.Any:
                # yaql gets the receiver already computed: evaluating the left
                # side again would repeat its side effects
                spend(CALL_STEPS)
                return runner.call(operator, scope, (ast.Constant(value), right_node), {},
                                   _engine(scope, legacy), NO_VALUE, scope)

            def attribute(scope: t.Any) -> t.Any:
                r = receiver(scope)
                if r is None and null_safe:
                    return None
                tr = type(r)
                if tr is utils.FrozenDict or tr is dict:
                    return r.get(name)
                return dispatch.get_attribute(scope, r, name, slow)
            return attribute
        if isinstance(right_node, ast.Function) and not isinstance(
                right_node, (ast.BinaryOperator, ast.UnaryOperator, ast.IndexExpression,
                             ast.ListExpression, ast.MapExpression, ast.GetContextValue)):
            return self._method_call(receiver, left_node, right_node, null_safe)
        # (not `slow`: the attribute read above defines a two-argument one)
        generic = self.fallback(operator, (left_node, right_node))
        return lambda scope: generic(scope)

    def _call_args(self, nodes: t.Sequence[t.Any]) -> tuple[list[Fn], list[tuple[str, Fn]]]:
        positional: list[Fn] = []
        named: list[tuple[str, Fn]] = []
        for arg in nodes:
            if isinstance(arg, ast.MappingRuleExpression) and isinstance(
                    arg.source, ast.KeywordConstant):
                named.append((arg.source.value, self.node(arg.destination)))
            else:
                positional.append(self.node(arg))
        return positional, named

    def _method_call(self, receiver: Fn, left_node: t.Any, fn: t.Any,
                     null_safe: bool = False) -> Fn:
        name = fn.name
        if self.contract and name in dispatch.CONTRACT_METHODS:
            return dispatch.compile_contract_method(self, receiver, fn)
        fast = self.functions.fast_methods.get(name)
        builtin = self.functions.methods.get(name)
        slow = self.fallback(name, fn.args)
        positional, named = self._call_args(fn.args)
        fast_fn = fast(self, fn.args) if fast is not None else None

        def method_call(scope: t.Any) -> t.Any:
            r = receiver(scope)
            if r is None and null_safe:
                return None
            return dispatch.call_method(scope, r, name, positional, named, slow, fast_fn,
                                        builtin)
        return method_call

    def _function(self, node: t.Any, receiver: Fn | None) -> Fn:
        name = node.name
        builtin = self.functions.functions.get(name)
        if builtin is not None:
            return dispatch.compile_builtin(self, builtin, node.args)
        compiled = self.functions.compiled_functions.get(name)
        if compiled is not None and not self.legacy:
            direct: Fn | None = compiled(self, node.args)
            if direct is not None:
                return direct
        slow = self.fallback(name, node.args)
        fast = self.functions.fast_functions.get(name) if not self.legacy else None
        if fast is not None and all(not isinstance(a, ast.MappingRuleExpression)
                                    for a in node.args):
            args = [self.node(a) for a in node.args]

            def fast_call(scope: t.Any) -> t.Any:
                result = fast(*[a(scope) for a in args])
                if result is NO_VALUE:
                    return slow(scope)
                return result
            return fast_call
        return lambda scope: slow(scope)


# Keyed by the parsed statement itself: yaql_engine.parse shares one statement
# per text, and an entry here keeps its statement (and so its key) alive. Bounded
# like the parse cache, so a long-running process that loads ever new packages
# does not keep every expression it ever saw.
COMPILE_CACHE_SIZE = 65536


@functools.lru_cache(maxsize=COMPILE_CACHE_SIZE)
def compile_statement(parsed: t.Any, legacy: bool, contract: bool = False,
                      functions: FunctionTable | None = None) -> Fn:
    """Compiled form of a parsed statement, built once per statement object
    and function table."""
    return Compiler(legacy, contract, functions).statement(parsed)
