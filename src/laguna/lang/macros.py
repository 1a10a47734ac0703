"""Instructions of a method body: expressions, assignments and block constructs.

Each block construct is one class with ``parse`` (from the loaded YAML,
checking its keys) and ``execute(scope)``; :data:`BLOCKS` maps the keyword
that introduces it to the class.
"""

from __future__ import annotations

import abc
import concurrent.futures
import contextvars
import time
import typing as t

from yaql.language import expressions as ast
from yaql.language import utils

from laguna.lang import errors, limits
from laguna.lang.compiler import Compiler, compile_statement
from laguna.lang.dispatch import freeze
from laguna.lang.errors import BreakSignal, ClassLoadError, ContinueSignal, ReturnSignal
from laguna.lang.functions import FunctionTable
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import Scope, lookup, normalize_name
from laguna.lang.types import TypeRef
from laguna.source import Span
from laguna.yamlio import plain, span_of
from laguna.yaql.expressions import YaqlExpression

Fn = t.Callable[[t.Any], t.Any]


class ParseContext(t.NamedTuple):
    """Where instructions are being parsed: the fallback span (for errors),
    the package's yaql flavour and the functions its code may call."""

    span: Span | None
    legacy: bool
    functions: FunctionTable

    def compile(self, value: t.Any) -> Fn:
        """See :func:`compile_data`."""
        return compile_data(value, self.legacy, self.functions)


# -- data with embedded expressions ---------------------------------------------------
class ConstantData:
    """The compiled form of a structure without expressions: its frozen value,
    which a caller may take without making a scope to evaluate it in."""

    __slots__ = ("value",)

    def __init__(self, value: t.Any) -> None:
        self.value = value

    def __call__(self, scope: t.Any) -> t.Any:
        return self.value


def compile_data(value: t.Any, legacy: bool, functions: FunctionTable) -> Fn:
    """A closure evaluating a YAML structure whose leaves may be expressions."""
    if isinstance(value, YaqlExpression):
        return compile_statement(value.parsed, legacy, functions=functions)
    if isinstance(value, dict):
        if not any(_has_expression(v) or isinstance(k, YaqlExpression) for k, v in value.items()):
            return ConstantData(freeze(plain(value)))
        items = [(compile_data(k, legacy, functions), compile_data(v, legacy, functions))
                 for k, v in value.items()]
        return lambda scope: utils.FrozenDict((k(scope), v(scope)) for k, v in items)
    if isinstance(value, list):
        if not any(_has_expression(v) for v in value):
            return ConstantData(freeze(plain(value)))
        fns = [compile_data(v, legacy, functions) for v in value]
        return lambda scope: tuple(f(scope) for f in fns)
    return ConstantData(plain(value))


# id of a YAML structure -> (the structure, legacy, function table, its closure):
# defaults and meta values are evaluated again and again from one declaration;
# the structure is kept alive by its entry, so its id is not reused meanwhile
_DATA_CACHE: dict[int, tuple[t.Any, bool, t.Any, Fn]] = {}
_DATA_CACHE_SIZE = 4096


def compiled_data(value: t.Any, legacy: bool, functions: FunctionTable) -> Fn:
    """:func:`compile_data` of ``value``, kept for the next evaluation of the
    same structure (declarations are never changed once loaded)."""
    entry = _DATA_CACHE.get(id(value))
    if entry is not None and entry[0] is value and entry[1] == legacy and entry[2] is functions:
        return entry[3]
    fn = compile_data(value, legacy, functions)
    if len(_DATA_CACHE) >= _DATA_CACHE_SIZE:
        _DATA_CACHE.clear()
    _DATA_CACHE[id(value)] = (value, legacy, functions, fn)
    return fn


def _has_expression(value: t.Any) -> bool:
    if isinstance(value, YaqlExpression):
        return True
    if isinstance(value, dict):
        return any(_has_expression(k) or _has_expression(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_expression(v) for v in value)
    return False


# -- assignment targets ------------------------------------------------------------------
class Target(t.NamedTuple):
    get: Fn
    set: t.Callable[[t.Any, t.Any], None]


def compile_target(expr: YaqlExpression, functions: FunctionTable) -> Target:
    compiler = Compiler(expr.legacy, functions=functions)
    node = expr.parsed.expression if isinstance(expr.parsed, ast.Statement) else expr.parsed

    def invalid(scope: t.Any, value: t.Any) -> None:
        raise errors.InvalidLhsTargetError(expr.text)

    def build(node: t.Any) -> Target:
        if isinstance(node, ast.Wrap):
            return build(node.expr)
        if isinstance(node, ast.GetContextValue):
            name = normalize_name(node.path.value)

            def set_variable(scope: t.Any, value: t.Any) -> None:
                if name in ("$1", "$this"):
                    raise errors.InvalidAssignmentError(f"Cannot assign to {node.path.value}")
                scope.frame.locals.set_local(name, value)
            return Target(lambda scope: lookup(scope, name), set_variable)
        if isinstance(node, ast.BinaryOperator) and node.operator == "." and isinstance(
                node.args[1], ast.KeywordConstant):
            return attribute(build(node.args[0]), node.args[1].value)
        if isinstance(node, ast.IndexExpression) and len(node.args) == 2:
            base = build(node.args[0])
            index = compiler.node(node.args[1])
            return indexation(base, index)
        if (isinstance(node, ast.BinaryOperator) and node.operator == ":") or (
                isinstance(node, ast.UnaryOperator) and node.operator == ":") or (
                isinstance(node, ast.Function) and node.name == "type"):
            return Target(compiler.node(node), invalid)
        raise ClassLoadError(f'Invalid assignment target "{expr.text}"', expr.span,
                             code="LAG-E0210")

    def attribute(base: Target, key: str) -> Target:
        def get(scope: t.Any) -> t.Any:
            src = base.get(scope)
            if isinstance(src, (dict, utils.FrozenDict)):
                return src.get(key, utils.FrozenDict())
            if isinstance(src, MuranoObject):
                try:
                    return src.get_property(key, scope.frame.cls)
                except errors.UninitializedPropertyAccessError:
                    return utils.FrozenDict()
            if isinstance(src, TypeRef):
                return scope.frame.executor.get_static_property(src.type, key, scope.frame.cls)
            raise errors.DslInvalidOperationError(
                "attribution may only be applied to objects and dictionaries")

        def set_(scope: t.Any, value: t.Any) -> None:
            src = base.get(scope)
            if isinstance(src, (dict, utils.FrozenDict)):
                updated = dict(src)
                updated[key] = value
                base.set(scope, utils.FrozenDict(updated))
            elif isinstance(src, MuranoObject):
                scope.frame.executor.set_property(src, key, value, scope.frame)
            elif isinstance(src, TypeRef):
                scope.frame.executor.set_static_property(src.type, key, value, scope.frame)
            else:
                raise errors.DslInvalidOperationError(
                    "attribution may only be applied to objects and dictionaries")
        return Target(get, set_)

    def indexation(base: Target, index: Fn) -> Target:
        def get(scope: t.Any) -> t.Any:
            src = base.get(scope)
            key = index(scope)
            if isinstance(src, (tuple, list)) and isinstance(key, int):
                return src[key]
            return attribute(base, key).get(scope)

        def set_(scope: t.Any, value: t.Any) -> None:
            src = base.get(scope)
            key = index(scope)
            if isinstance(src, (tuple, list)) and isinstance(key, int):
                items = list(src)
                items[key] = value
                base.set(scope, tuple(items))
            else:
                attribute(base, key).set(scope, value)
        return Target(get, set_)

    return build(node)


# -- instructions -------------------------------------------------------------------------
class Instruction(abc.ABC):
    span: Span | None = None
    text: str = "block construct"

    @abc.abstractmethod
    def execute(self, scope: t.Any) -> None:
        """Run the instruction in ``scope``."""


class CodeBlock:
    """A list of instructions run in order; errors get the MuranoPL stack."""

    __slots__ = ("instructions",)

    def __init__(self, instructions: list[Instruction]) -> None:
        self.instructions = instructions

    def execute(self, scope: t.Any) -> None:
        frame = scope.frame
        for instruction in self.instructions:
            frame.span = instruction.span
            frame.instruction = instruction.text
            try:
                # If.execute and a variable's Assignment.execute, without
                # their calls (loop bodies)
                if type(instruction) is If:
                    branch = (instruction.then if instruction.condition(scope)
                              else instruction.otherwise)
                    if branch is not None:
                        branch.execute(scope)
                    continue
                if type(instruction) is Assignment and instruction._variable is not None:
                    value = instruction.value(scope)
                    frame.locals._data[instruction._variable] = value
                    continue
                instruction.execute(scope)
            except (errors.FlowSignal, errors.MuranoPlError):
                raise
            except Exception as exc:
                raise frame.executor.to_murano_error(exc, frame) from exc


# what :meth:`CodeBlock.returning` gives when the block ran to its end
NOT_RETURNED: t.Any = object()


def _returning(block: CodeBlock, scope: t.Any) -> t.Any:
    """Run ``block``, a method's own block or a branch of an `If` in it: the
    value of a `Return` reached there (without raising its signal, which a
    guard clause `If: ... Then: [Return: ...]` paid on every call), else
    NOT_RETURNED. Spans and errors as :meth:`CodeBlock.execute` sets them; a
    Return anywhere else (loops, Try) still raises its signal."""
    frame = scope.frame
    for instruction in block.instructions:
        frame.span = instruction.span
        frame.instruction = instruction.text
        try:
            if type(instruction) is Return:
                return instruction.value(scope)
            if type(instruction) is If:
                branch = instruction.then if instruction.condition(scope) else instruction.otherwise
                if branch is not None:
                    value = _returning(branch, scope)
                    if value is not NOT_RETURNED:
                        return value
                continue
            instruction.execute(scope)
        except (errors.FlowSignal, errors.MuranoPlError):
            raise
        except Exception as exc:
            raise frame.executor.to_murano_error(exc, frame) from exc
    return NOT_RETURNED


class MethodBlock(CodeBlock):
    __slots__ = ()

    def run(self, scope: t.Any) -> t.Any:
        try:
            value = _returning(self, scope)
            if value is not NOT_RETURNED:
                return value
        except ReturnSignal as signal:
            return signal.value
        except BreakSignal:
            raise scope.frame.executor.to_murano_error(
                errors.DslInvalidOperationError("Break cannot be used on method level"),
                scope.frame) from None
        except ContinueSignal:
            raise scope.frame.executor.to_murano_error(
                errors.DslInvalidOperationError("Continue cannot be used on method level"),
                scope.frame) from None
        return None


class Expression(Instruction):
    def __init__(self, expr: YaqlExpression, functions: FunctionTable) -> None:
        self.fn = compile_statement(expr.parsed, expr.legacy, functions=functions)
        self.span = expr.span
        self.text = expr.text

    def execute(self, scope: t.Any) -> None:
        self.fn(scope)


class Assignment(Instruction):
    def __init__(self, target: YaqlExpression, value: t.Any, legacy: bool,
                 functions: FunctionTable) -> None:
        self.target = compile_target(target, functions)
        self.value = compile_data(value, legacy, functions)
        self.span = target.span
        self.text = f"{target.text}: {value}" if not isinstance(value, (dict, list)) else \
            f"{target.text}: ..."
        self._variable = _simple_variable(target)

    def execute(self, scope: t.Any) -> None:
        value = self.value(scope)
        if self._variable is not None:
            scope.frame.locals._data[self._variable] = value   # Scope.set_local, inlined
        else:
            self.target.set(scope, value)


def _simple_variable(target: YaqlExpression) -> str | None:
    node = target.parsed.expression if isinstance(target.parsed, ast.Statement) else target.parsed
    if isinstance(node, ast.GetContextValue):
        name = normalize_name(node.path.value)
        if name not in ("$1", "$this"):
            return name
    return None


# Block constructs ------------------------------------------------------------------------
class Block(Instruction):
    keyword: str
    allowed: frozenset[str]
    required: frozenset[str] = frozenset()

    @classmethod
    def build(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        span = span_of(data) or ctx.span
        key_spans = getattr(data, "key_spans", {})
        for key in data:
            if key not in cls.allowed:
                raise ClassLoadError(
                    f"unexpected key {key!r} in {cls.keyword} block; expected one of "
                    f"{', '.join(sorted(cls.allowed))}", key_spans.get(key, span),
                    code="LAG-E0211")
        for key in cls.required:
            if key not in data:
                raise ClassLoadError(f"{cls.keyword} block needs a {key!r} key", span,
                                     code="LAG-E0212")
        block = cls.parse(data, ctx._replace(span=span))
        block.span = span
        return block

    @classmethod
    @abc.abstractmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        """Build the block from its checked keys."""


class Return(Block):
    keyword, allowed = "Return", frozenset({"Return"})
    value: Fn

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.value = ctx.compile(data["Return"])
        block.text = f"Return: {data['Return']}"
        return block

    def execute(self, scope: t.Any) -> None:
        raise ReturnSignal(self.value(scope))


class _LoopSignal(Block):
    """`Break:` and `Continue:`: a keyword without a value that raises its signal."""

    signal: type[Exception]

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        if data[cls.keyword] is not None:
            raise ClassLoadError(f"{cls.keyword} cannot have value", ctx.span, code="LAG-E0213")
        block = cls()
        block.text = cls.keyword
        return block

    def execute(self, scope: t.Any) -> None:
        raise self.signal()


class Break(_LoopSignal):
    keyword, allowed, signal = "Break", frozenset({"Break"}), BreakSignal


class Continue(_LoopSignal):
    keyword, allowed, signal = "Continue", frozenset({"Continue"}), ContinueSignal


class If(Block):
    keyword, allowed, required = "If", frozenset({"If", "Then", "Else"}), frozenset({"Then"})
    condition: Fn
    then: CodeBlock
    otherwise: CodeBlock | None

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.condition = ctx.compile(data["If"])
        block.then = parse_block(data["Then"], ctx)
        block.otherwise = parse_block(data["Else"], ctx) if "Else" in data else None
        block.text = f"If: {data['If']}"
        return block

    def execute(self, scope: t.Any) -> None:
        if self.condition(scope):
            self.then.execute(scope)
        elif self.otherwise is not None:
            self.otherwise.execute(scope)


def _loop_body(body: CodeBlock, scope: t.Any) -> bool:
    """Run one iteration; False means Break."""
    try:
        body.execute(scope)
    except BreakSignal:
        return False
    except ContinueSignal:
        pass
    return True


class While(Block):
    keyword, allowed, required = "While", frozenset({"While", "Do"}), frozenset({"Do"})
    condition: Fn
    body: CodeBlock

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        if not isinstance(data["While"], YaqlExpression):
            raise ClassLoadError("While needs a YAQL expression", ctx.span, code="LAG-E0214")
        block = cls()
        block.condition = ctx.compile(data["While"])
        block.body = parse_block(data["Do"], ctx)
        block.text = f"While: {data['While']}"
        return block

    def execute(self, scope: t.Any) -> None:
        executor = scope.frame.executor
        while self.condition(scope):
            executor.tick()
            if not _loop_body(self.body, scope):
                break


class For(Block):
    keyword, allowed, required = "For", frozenset({"For", "In", "Do"}), frozenset({"In", "Do"})
    variable: str
    collection: Fn
    body: CodeBlock

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        if not isinstance(data["For"], str):
            raise ClassLoadError("For value must be of string type", ctx.span, code="LAG-E0215")
        block = cls()
        block.variable = normalize_name(str(data["For"]))
        block.collection = ctx.compile(data["In"])
        block.body = parse_block(data["Do"], ctx)
        block.text = f"For: {data['For']}"
        return block

    def execute(self, scope: t.Any) -> None:
        executor = scope.frame.executor
        collection = self.collection(scope)
        if isinstance(collection, (dict, utils.FrozenDict)):
            collection = tuple(collection)
        local_data = scope.frame.locals._data   # Scope.set_local, inlined below
        variable = self.variable
        body = self.body
        monotonic = time.monotonic
        # a lazy sequence is never built whole; the loop stops at the
        # collection limit (iterators) as any collection would
        for item in limits.limit_iterable(executor.limits, collection):
            deadline = executor._deadline   # executor.tick() and _loop_body, inlined
            if deadline is not None and monotonic() > deadline:
                # named at the loop that ran out of time, not at whichever of its
                # statements ran last (the first iteration's would be the loop's
                # caller): one place, however the time fell
                frame = scope.frame
                frame.span, frame.instruction = self.span, self.text
                raise limits.exceeded(executor.limits, "execution_seconds")
            local_data[variable] = item
            try:
                body.execute(scope)
            except BreakSignal:
                break
            except ContinueSignal:
                pass


class Repeat(Block):
    keyword, allowed, required = "Repeat", frozenset({"Repeat", "Do"}), frozenset({"Do"})
    count: Fn
    body: CodeBlock

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        count = data["Repeat"]
        if not isinstance(count, (int, YaqlExpression)) or isinstance(count, bool):
            raise ClassLoadError("Repeat value must be either int or expression", ctx.span,
                                 code="LAG-E0216")
        block = cls()
        block.count = ctx.compile(count)
        block.body = parse_block(data["Do"], ctx)
        block.text = f"Repeat: {count}"
        return block

    def execute(self, scope: t.Any) -> None:
        executor = scope.frame.executor
        for _ in range(self.count(scope)):
            executor.tick()
            if not _loop_body(self.body, scope):
                break


class Match(Block):
    keyword, allowed = "Match", frozenset({"Match", "Value", "Default"})
    required = frozenset({"Value"})
    cases: list[tuple[t.Any, CodeBlock]]
    value: Fn
    default: CodeBlock | None

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        cases = data["Match"]
        if not isinstance(cases, dict):
            raise ClassLoadError("Match value must be of dictionary type", ctx.span,
                                 code="LAG-E0217")
        block = cls()
        block.cases = [(plain(key), parse_block(code, ctx)) for key, code in cases.items()]
        block.value = ctx.compile(data["Value"])
        block.default = parse_block(data["Default"], ctx) if "Default" in data else None
        block.text = f"Match: {data['Value']}"
        return block

    def execute(self, scope: t.Any) -> None:
        value = self.value(scope)
        for key, code in self.cases:
            if key == value:
                code.execute(scope)
                return
        if self.default is not None:
            self.default.execute(scope)


class Switch(Block):
    keyword, allowed = "Switch", frozenset({"Switch", "Default"})
    cases: list[tuple[Fn, CodeBlock]]
    default: CodeBlock | None

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        cases = data["Switch"]
        if not isinstance(cases, dict):
            raise ClassLoadError("Switch value must be of dictionary type", ctx.span,
                                 code="LAG-E0217")
        block = cls()
        block.cases = [(ctx.compile(key), parse_block(code, ctx))
                       for key, code in cases.items()]
        block.default = parse_block(data["Default"], ctx) if "Default" in data else None
        block.text = "Switch"
        return block

    def execute(self, scope: t.Any) -> None:
        matched = False
        for predicate, code in self.cases:
            if predicate(scope):
                matched = True
                code.execute(scope)
        if not matched and self.default is not None:
            self.default.execute(scope)


class Do(Block):
    keyword, allowed = "Do", frozenset({"Do"})
    body: CodeBlock

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.body = parse_block(data["Do"], ctx)
        block.text = "Do"
        return block

    def execute(self, scope: t.Any) -> None:
        self.body.execute(scope)


class Parallel(Block):
    """Runs each instruction in its own thread, at most ``Limit`` at a time."""
    branches: list[Instruction]
    limit: Fn | None

    keyword, allowed = "Parallel", frozenset({"Parallel", "Limit"})

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.branches = parse_block(data["Parallel"], ctx).instructions
        block.limit = ctx.compile(data["Limit"]) if "Limit" in data else None
        block.text = "Parallel"
        return block

    def execute(self, scope: t.Any) -> None:
        if not self.branches:
            return
        limit = self.limit(scope) if self.limit is not None else len(self.branches)
        limit = max(1, int(limit or len(self.branches)))
        frame = scope.frame
        executor = frame.executor

        def run(instruction: Instruction) -> None:
            branch_frame = executor.branch_frame(frame)
            child = Scope(scope)
            child.frame = branch_frame
            CodeBlock([instruction]).execute(child)

        with executor.method_locks.threads(), \
                concurrent.futures.ThreadPoolExecutor(max_workers=limit) as pool:
            # each thread runs under the call's limits (a copy of this context each)
            futures = [pool.submit(contextvars.copy_context().run, run, instruction)
                       for instruction in self.branches]
            first_error: BaseException | None = None
            for future in futures:
                error = future.exception()
                if error is not None and first_error is None:
                    first_error = error
        if first_error is not None:
            raise first_error


class Throw(Block):
    keyword, allowed = "Throw", frozenset({"Throw", "Message", "Extra", "Cause"})
    names: Fn
    message: Fn
    extra: Fn
    cause: Fn | None

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        if not data["Throw"]:
            raise ClassLoadError("Throw needs an exception name", ctx.span, code="LAG-E0218")
        block = cls()
        block.names = ctx.compile(data["Throw"])
        block.message = ctx.compile(data.get("Message"))
        block.extra = ctx.compile(data.get("Extra") or {})
        block.cause = ctx.compile(data["Cause"]) if "Cause" in data else None
        block.text = f"Throw {data['Throw']}" + (
            f": {data['Message']}" if data.get("Message") is not None else "")
        return block

    def execute(self, scope: t.Any) -> None:
        frame = scope.frame
        names = self.names(scope)
        if not isinstance(names, (tuple, list)):
            names = [names]
        resolved = [frame.cls.resolve_name(str(n)) for n in names]
        message = self.message(scope)
        cause = None
        if self.cause is not None:
            cause_obj = self.cause(scope)
            if isinstance(cause_obj, MuranoObject):
                cause = cause_obj.real_this.values.get("nativeException")
        raise errors.MuranoPlError(resolved, "" if message is None else str(message),
                                   frame.executor.stack_frames(frame), self.extra(scope),
                                   cause)


class Catch:
    def __init__(self, data: t.Any, ctx: ParseContext) -> None:
        if not isinstance(data, dict):
            raise ClassLoadError("Catch entries must be mappings", ctx.span, code="LAG-E0219")
        for key in data:
            if key not in ("With", "As", "Do"):
                raise ClassLoadError(f"unexpected key {key!r} in Catch; expected With, As, Do",
                                     getattr(data, "key_spans", {}).get(key, ctx.span),
                                     code="LAG-E0211")
        names = data.get("With")
        if names is not None and not isinstance(names, list):
            names = [names]
        self.names = None if names is None else [str(n) for n in names]
        self.variable = normalize_name(str(data["As"])) if data.get("As") else None
        self.body = parse_block(data["Do"], ctx) if data.get("Do") is not None else None

    def matches(self, error: errors.MuranoPlError, scope: t.Any) -> str | None:
        resolved = None if self.names is None else {
            scope.frame.cls.resolve_name(n) for n in self.names}
        for name in error.names:
            if resolved is None or name in resolved:
                return name
        return None


class Try(Block):
    keyword, allowed = "Try", frozenset({"Try", "Catch", "Else", "Finally"})
    body: CodeBlock
    catches: list[Catch] | None
    otherwise: CodeBlock | None
    final: CodeBlock | None

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.body = parse_block(data["Try"], ctx)
        catches = data.get("Catch")
        if catches is not None and not isinstance(catches, list):
            catches = [catches]
        block.catches = [Catch(c, ctx) for c in catches] if catches is not None else None
        block.otherwise = parse_block(data["Else"], ctx) if "Else" in data else None
        block.final = parse_block(data["Finally"], ctx) if "Finally" in data else None
        block.text = "Try"
        return block

    def execute(self, scope: t.Any) -> None:
        frame = scope.frame
        try:
            self.body.execute(scope)
        except errors.MuranoPlError as error:
            if not self.catches:
                raise
            previous = frame.exception
            frame.exception = error
            try:
                for catch in self.catches:
                    name = catch.matches(error, scope)
                    if name is None:
                        continue
                    if catch.variable is not None:
                        frame.locals.set_local(catch.variable, frame.executor.exception_object(
                            error, name, frame))
                    if catch.body is not None:
                        catch.body.execute(scope)
                    break
                else:
                    raise
            finally:
                frame.exception = previous
        else:
            if self.otherwise is not None:
                self.otherwise.execute(scope)
        finally:
            if self.final is not None:
                self.final.execute(scope)


class Rethrow(Block):
    keyword, allowed = "Rethrow", frozenset({"Rethrow"})

    @classmethod
    def parse(cls, data: dict[str, t.Any], ctx: ParseContext) -> Block:
        block = cls()
        block.text = "Rethrow"
        return block

    def execute(self, scope: t.Any) -> None:
        error = scope.frame.exception
        if error is None:
            raise errors.RethrowOutsideCatchError("Rethrow must be inside Catch")
        raise error


BLOCKS: dict[str, type[Block]] = {cls.keyword: cls for cls in (
    Return, Break, Continue, If, While, For, Repeat, Match, Switch, Do, Parallel, Throw,
    Try, Rethrow)}
# Keys that select the construct when several keywords appear (e.g. `For` with `Do`).
_PRIMARY = ("Return", "Break", "Continue", "If", "While", "For", "Repeat", "Match",
            "Switch", "Parallel", "Throw", "Try", "Rethrow", "Do")


def parse_instruction(data: t.Any, ctx: ParseContext) -> Instruction:
    if isinstance(data, YaqlExpression):
        return Expression(data, ctx.functions)
    if isinstance(data, dict):
        expression_keys = [k for k in data if isinstance(k, YaqlExpression)]
        if expression_keys:
            if len(data) != 1:
                raise ClassLoadError(
                    "an assignment must be a mapping with a single key",
                    span_of(data) or ctx.span, code="LAG-E0220")
            target = expression_keys[0]
            return Assignment(target, data[target], ctx.legacy, ctx.functions)
        for keyword in _PRIMARY:
            if keyword in data:
                return BLOCKS[keyword].build(data, ctx)
        keys = ", ".join(repr(str(k)) for k in data)
        raise ClassLoadError(f"unknown instruction with keys {keys}; expected an expression, "
                             f"an assignment or one of {', '.join(_PRIMARY)}",
                             span_of(data) or ctx.span, code="LAG-E0221")
    if data is None:
        return _Noop()
    span = span_of(data) or ctx.span
    raise ClassLoadError(f"{str(data)!r} is not an instruction (a plain value is not an "
                         "expression: use !yaql or an expression with $)", span,
                         code="LAG-E0222")


class _Noop(Instruction):
    text = "null"

    def execute(self, scope: t.Any) -> None:
        return None


def parse_block(data: t.Any, ctx: ParseContext) -> CodeBlock:
    items = data if isinstance(data, list) else ([] if data is None else [data])
    instructions: list[Instruction] = []
    problems: list[ClassLoadError] = []
    for item in items:
        try:
            instructions.append(parse_instruction(item, ctx))
        except ClassLoadError as error:
            problems.extend(error.every())
    if problems:
        first = problems[0]
        first.others = tuple(problems[1:])
        raise first
    return CodeBlock(instructions)


def parse_method_body(data: t.Any, ctx: ParseContext) -> MethodBlock:
    return MethodBlock(parse_block(data, ctx).instructions)
