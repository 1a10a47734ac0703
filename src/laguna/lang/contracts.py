"""Contracts: what a property or argument accepts, and how values are converted.

A contract is a YAML structure: a YAQL expression over ``$`` (the value) made
of contract methods (`$.int()`, `$.string()`, `$.bool()`, `$.notNull()`,
`$.check(pred, msg)`, `$.class(T, Default, spec)`, `$.template(T, ...)`,
`$.owned()`, `$.notOwned()`), a list of contracts with optional length
bounds, a dictionary of contracts (one key may be a contract for the other
keys), or a constant the value must equal. The structure is compiled once into
shapes (`_compile`); null passes a list or dictionary shape as null.

It runs in one of three modes: ``transform`` converts the value (the default,
and it creates objects from dictionaries), ``validate`` only checks an
already converted value (used for the ancestors' declarations of a
redeclared property), ``check`` answers whether the value fits without
creating anything (extension method dispatch).
"""

from __future__ import annotations

import abc
import contextlib

import typing as t

from yaql.language import expressions as ast
from yaql.language import utils

from laguna.lang import errors
from laguna.lang.objects import MuranoObject, find_owner
from laguna.lang.resolution import incompatibility
from laguna.lang.scope import NO_VALUE, Frame
from laguna.yaql.expressions import YaqlExpression

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor
    from laguna.lang.types import MuranoClass

TRANSFORM, VALIDATE, CHECK = "transform", "validate", "check"


class HasMode(t.Protocol):
    """What the simple contract methods read of a contract's state: the mode."""

    @property
    def mode(self) -> str: ...


def format_scalar(value: t.Any) -> str:
    """A value as contract messages and paths show it: text in single quotes
    (not escaped), anything else as Python prints it (null is `None`)."""
    text = str(value)
    return "'" + text + "'" if isinstance(value, str) else text


class ObjRef:
    """A reference by id to an object not loaded yet (model loading only)."""

    __slots__ = ("object_id",)
    # how many were ever made: a graph load that made none has none to resolve
    made: t.ClassVar[int] = 0

    def __init__(self, object_id: str) -> None:
        self.object_id = object_id
        ObjRef.made += 1


class ContractState:
    """What contract methods need to know while one contract runs."""

    __slots__ = ("mode", "this", "owner", "executor", "calling_type", "declaring_type")

    def __init__(self, mode: str, this: t.Any, owner: t.Any, executor: Executor,
                 calling_type: MuranoClass | None, declaring_type: MuranoClass) -> None:
        self.mode = mode
        self.this = this
        self.owner = owner
        self.executor = executor
        self.calling_type = calling_type
        self.declaring_type = declaring_type


class Contract:
    """A compiled contract of one property or argument.

    ``fast``: expressions of the common forms (a chain of `int()`,
    `string()`, `bool()`, `notNull()` and `check()` with a predicate of
    operators over `$`) are checked by direct calls, without a scope, a frame
    or the compiled expression (:class:`_Steps`); False keeps every
    expression on the general path (the tests compare both)."""

    __slots__ = ("declaring_type", "text", "shape", "unchanged")

    def __init__(self, spec: t.Any, declaring_type: MuranoClass, *, fast: bool = True) -> None:
        self.declaring_type = declaring_type
        self.text = _spec_text(spec)
        self.shape = _compile(spec, fast)
        # the types of the values the contract gives back as they are, in
        # every mode, without looking at anything else (`$.int().notNull()`:
        # int): an argument or property of one of them is checked by its type
        self.unchanged = self.shape.unchanged if type(self.shape) is _Steps else frozenset()

    def apply(self, value: t.Any, *, executor: Executor, this: t.Any, owner: t.Any = None,
              mode: str = TRANSFORM, default: t.Any = None,
              caller: Frame | None = None) -> t.Any:
        if type(value) in self.unchanged:
            return value
        walk = _Walk(self, executor, this, owner, mode, caller)
        if value is NO_VALUE:
            # (a scalar default is its own value: no frame made for it)
            value = default if default is None or isinstance(default, (int, float, str)) \
                else executor.evaluate_data(default, walk.frame)
        return self.shape.conform(value, "", walk)

    def check(self, value: t.Any, *, executor: Executor, this: t.Any,
              caller: Frame | None = None) -> bool:
        try:
            self.apply(value, executor=executor, this=this, mode=CHECK, caller=caller)
        except errors.ContractViolationException:
            return False
        return True

    def _expression(self, data: t.Any, spec: YaqlExpression, frame: Frame,
                    state: ContractState, path: str) -> t.Any:
        from laguna.lang.compiler import compile_statement
        fn = compile_statement(spec.parsed, spec.legacy, contract=True,
                                functions=frame.executor.functions)
        scope = frame.executor.new_scope(self.declaring_type)
        scope.frame = frame
        scope.contract = state
        scope.set_local("$1", data)
        scope.set_local("$this", state.this)
        try:
            return fn(scope)
        except Exception as exc:
            _locate_failure(exc, path, spec.span)
            raise


def _locate_failure(exc: Exception, path: str, span: t.Any) -> None:
    """Where a contract failed: a violation gets the path of the value inside
    the checked one; any other error means the contract itself is wrong (an
    unknown function, a class that is not found) and names the contract's
    place, not only the caller's (tracebacks print it as "Contract declared at")."""
    if isinstance(exc, errors.ContractViolationException):
        if exc.target is None:
            exc.path = path + exc.path
    elif not isinstance(exc, (errors.FlowSignal, errors.MuranoPlError)) \
            and getattr(exc, "declared_at", None) is None and span is not None:
        with contextlib.suppress(AttributeError):
            exc.declared_at = span  # type: ignore[attr-defined]


# -- shapes: a contract's YAML structure, compiled once ----------------------------
# A spec is compiled into a tree of shapes when the contract is built; applying
# the contract walks that tree alongside the value. Null conforms to a list or
# dictionary shape as null (a list's least length still counts it as empty).

class _Walk:
    """What every shape of one application of a contract shares; the frame
    and the state of contract methods are made when an expression needs them."""

    __slots__ = ("contract", "executor", "this", "owner", "mode", "caller", "_frame", "_state")

    def __init__(self, contract: Contract, executor: Executor, this: t.Any, owner: t.Any,
                 mode: str, caller: Frame | None) -> None:
        self.contract = contract
        self.executor = executor
        self.this = this
        self.owner = owner
        self.mode = mode
        self.caller = caller
        self._frame: Frame | None = None
        self._state: ContractState | None = None

    @property
    def frame(self) -> Frame:
        frame = self._frame
        if frame is None:
            frame = self._frame = Frame(self.executor, self.this, None,
                                        self.contract.declaring_type, self.caller)
        return frame

    @property
    def state(self) -> ContractState:
        state = self._state
        if state is None:
            caller = self.caller
            state = self._state = ContractState(
                self.mode, self.this, self.owner, self.executor,
                caller.cls if caller is not None else None, self.contract.declaring_type)
        return state


class _Shape(abc.ABC):
    __slots__ = ()

    @abc.abstractmethod
    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        """``value`` made to fit this part of the contract, or a violation at ``path``."""


class _Expression(_Shape):
    """A YAQL expression of contract methods over `$`."""

    __slots__ = ("expression",)

    def __init__(self, expression: YaqlExpression) -> None:
        self.expression = expression

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        return walk.contract._expression(value, self.expression, walk.frame, walk.state, path)


class _Steps(_Expression):
    """An expression of the common forms, `$` followed by a chain of `int()`,
    `string()`, `bool()`, `notNull()` and `check(predicate, message)` whose
    predicate and message are operators over `$` and constants: each step is
    a direct call of the contract method, the predicate compiled on its own
    (once per function table). What it returns and raises is what the
    general path (:class:`_Expression`) does."""

    __slots__ = ("steps", "check_nodes", "checks", "unchanged")

    def __init__(self, expression: YaqlExpression, steps: tuple[_Step | int, ...],
                 check_nodes: tuple[tuple[t.Any, t.Any], ...]) -> None:
        super().__init__(expression)
        # a contract method (c_int ...), or the number of a check in check_nodes
        self.steps = steps
        # each check's predicate and message (or None) as yaql nodes
        self.check_nodes = check_nodes
        # function table -> each check's predicate and message compiled, the
        # predicate's generated form alone (lang/codegen.py) and what it gives
        # where its guards miss
        self.checks: dict[t.Any, tuple[tuple[t.Any, t.Any, t.Any, t.Any], ...]] = {}
        # what every step gives back as it is, whatever the mode (a check
        # must run its predicate: none)
        unchanged = _PLAIN
        for step in steps:
            unchanged = unchanged & _UNCHANGED[step] if not isinstance(step, int) else frozenset()
        self.unchanged = unchanged

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        data = value
        try:
            for step in self.steps:
                if isinstance(step, int):
                    value = self._check(data, value, step, walk)
                else:
                    value = step(walk, value)
        except Exception as exc:
            _locate_failure(exc, path, self.expression.span)
            raise
        if type(value) in _PLAIN:
            return value
        from laguna.lang.dispatch import freeze
        return freeze(value)

    def _check(self, data: t.Any, value: t.Any, number: int, walk: _Walk) -> t.Any:
        if isinstance(value, ObjRef):
            return value
        executor = walk.executor
        compiled = self.checks.get(executor.functions)
        if compiled is None:
            from laguna.lang import codegen
            from laguna.lang.compiler import Compiler
            legacy = self.expression.legacy
            compiler = Compiler(legacy, True, executor.functions)
            plain = Compiler(legacy, False, executor.functions)
            compiled = tuple((compiler.node(predicate),
                              None if message is None else compiler.node(message),
                              codegen.value_probe(plain, predicate), codegen.MISSED)
                             for predicate, message in self.check_nodes)
            self.checks[executor.functions] = compiled
        predicate, message, probe, missed = compiled[number]
        if probe is not None and message is None:
            # its generated form, where its guards hold: no frame, no scope
            passed = probe(value)
            if passed is not missed:
                return c_check(walk, value, bool(passed), None)
        declaring_type = walk.contract.declaring_type
        frame = walk.frame
        scope = executor.new_scope(declaring_type)
        scope.frame = frame
        scope.set_local("$1", value)
        passed = predicate(scope)
        text = None
        if message is not None:
            scope = executor.new_scope(declaring_type)
            scope.frame = frame
            scope.set_local("$1", data)
            text = message(scope)
        return c_check(walk, value, bool(passed), text)


class _Constant(_Shape):
    """Any other scalar: the value must equal it."""

    __slots__ = ("constant",)

    def __init__(self, constant: t.Any) -> None:
        self.constant = constant

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        if value == self.constant:
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} is not equal to {self.constant}", path)


class _Invalid(_Shape):
    """A spec that cannot be a contract; it fails wherever a value meets it."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        raise errors.ContractViolationException(self.reason, path)


class _Sequence(_Shape):
    """A list: item shapes by position (the last one repeats) and a length range."""

    __slots__ = ("items", "least", "most", "unchanged")

    def __init__(self, items: tuple[_Shape, ...], least: int, most: int | None) -> None:
        self.items = items
        self.least = least
        self.most = most
        # the item types its one item shape gives back as they are (`[$.string()]`:
        # str): a tuple of only those is its own result, without a walk
        only = items[0] if len(items) == 1 else None
        self.unchanged = only.unchanged if type(only) is _Steps else frozenset()

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        if value is None:
            self._check_length(0, path)
            return None
        if utils.is_iterator(value) or isinstance(value, list):
            value = tuple(value)
        elif not isinstance(value, tuple):
            value = (value,)
        self._check_length(len(value), path)
        if not self.items or self.unchanged.issuperset(map(type, value)):
            return value
        last = len(self.items) - 1
        return tuple(self.items[min(position, last)].conform(item, f"{path}[{position}]", walk)
                     for position, item in enumerate(value))

    def _check_length(self, length: int, path: str) -> None:
        if self.most is not None:
            if not self.least <= length <= self.most:
                raise errors.ContractViolationException(
                    f"Array length {length} is not within [{self.least}..{self.most}] range",
                    path)
        elif length < self.least:
            raise errors.ContractViolationException(
                f"Array length {length} must not be less than {self.least}", path)


class _Mapping(_Shape):
    """A dictionary: shapes of fixed keys, and optionally one key shape with the
    value shape for every other key (two keys that convert to one: the later
    wins). Without a key shape, keys that are not fixed are dropped."""

    __slots__ = ("fixed", "others")

    def __init__(self, fixed: dict[t.Any, _Shape],
                 others: tuple[_Shape, _Shape] | None) -> None:
        self.fixed = fixed
        self.others = others

    def conform(self, value: t.Any, path: str, walk: _Walk) -> t.Any:
        if value is None:
            return None
        if not isinstance(value, (dict, utils.FrozenDict)):
            raise errors.ContractViolationException(
                f"Value {format_scalar(value)} is not of a dictionary type", path)
        if not self.fixed and self.others is None:
            return value
        result = {key: shape.conform(value.get(key), f"{path}[{format_scalar(key)}]", walk)
                  for key, shape in self.fixed.items()}
        if self.others is not None:
            key_shape, value_shape = self.others
            for key, item in value.items():
                if key not in self.fixed:
                    key = key_shape.conform(key, path, walk)
                    result[key] = value_shape.conform(item, f"{path}[{format_scalar(key)}]", walk)
        return utils.FrozenDict(result)


def _is_length(item: t.Any) -> bool:
    return isinstance(item, int) and not isinstance(item, bool)


def _compile(spec: t.Any, fast: bool = True) -> _Shape:
    if isinstance(spec, YaqlExpression):
        return (_steps(spec) if fast else None) or _Expression(spec)
    if isinstance(spec, list):
        lengths = 0
        while lengths < min(2, len(spec)) and _is_length(spec[len(spec) - 1 - lengths]):
            lengths += 1
        bounds = spec[len(spec) - lengths:]
        items = tuple(_compile(item, fast) for item in spec[:len(spec) - lengths])
        least = bounds[0] if bounds else 0
        return _Sequence(items, least, bounds[1] if lengths == 2 else None)
    if isinstance(spec, dict):
        patterns = [key for key in spec if isinstance(key, YaqlExpression)]
        if len(patterns) > 1:
            return _Invalid("Dictionary contract cannot have more than one expression key")
        fixed = {key: _compile(item, fast) for key, item in spec.items()
                 if not isinstance(key, YaqlExpression)}
        others = ((_compile(patterns[0], fast), _compile(spec[patterns[0]], fast))
                  if patterns else None)
        return _Mapping(fixed, others)
    return _Constant(spec)


# the results a contract expression gives back as they are (no freezing)
_PLAIN: frozenset[type] = frozenset((int, str, bool, float, type(None)))
# operators a check's predicate may use on the fast path: they read no
# variable but `$`, call no MuranoPL method and no contract method
_IMPURE_OPERATORS = frozenset((".", "?.", ":", "is"))


def _steps(expression: YaqlExpression) -> _Steps | None:
    """The fast form of ``expression``, or None when it is not of the common forms."""
    parsed = expression.parsed
    node = parsed.expression if isinstance(parsed, ast.Statement) else parsed
    calls: list[t.Any] = []
    while isinstance(node, ast.BinaryOperator) and node.operator == ".":
        receiver, call = node.args
        if type(call) is not ast.Function:
            return None
        calls.append(call)
        node = receiver
    if not _is_dollar(node):
        return None
    steps: list[_Step | int] = []
    check_nodes: list[tuple[t.Any, t.Any]] = []
    for call in reversed(calls):
        simple = _SIMPLE_METHODS.get(call.name)
        if simple is not None and not call.args:
            steps.append(simple)
        elif (call.name == "check" and 1 <= len(call.args) <= 2
              and all(_is_pure(arg) for arg in call.args)):
            steps.append(len(check_nodes))
            check_nodes.append((call.args[0], call.args[1] if len(call.args) > 1 else None))
        else:
            return None
    return _Steps(expression, tuple(steps), tuple(check_nodes))


def _is_dollar(node: t.Any) -> bool:
    return (type(node) is ast.GetContextValue
            and node.path.value in ("$", "$1"))


def _is_pure(node: t.Any) -> bool:
    """Operators over `$` and constants only (see _IMPURE_OPERATORS)."""
    if type(node) in (ast.Constant, ast.KeywordConstant):
        return True
    if type(node) is ast.Wrap:
        return _is_pure(node.expr)
    if _is_dollar(node):
        return True
    if type(node) in (ast.BinaryOperator, ast.UnaryOperator):
        return (node.operator not in _IMPURE_OPERATORS
                and all(_is_pure(arg) for arg in node.args))
    return False


def _spec_text(spec: t.Any) -> str:
    if isinstance(spec, YaqlExpression):
        return spec.text
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{_spec_text(k)}: {_spec_text(v)}" for k, v in spec.items()) + "}"
    if isinstance(spec, list):
        return "[" + ", ".join(_spec_text(v) for v in spec) + "]"
    return repr(spec)


# -- contract methods, called from compiled contract expressions ------------------
def c_int(state: HasMode, value: t.Any) -> t.Any:
    if state.mode != TRANSFORM:
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates int() contract")
    if value is None:
        return None
    try:
        return int(value)
    except Exception:
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates int() contract") from None


def c_string(state: HasMode, value: t.Any) -> t.Any:
    if state.mode != TRANSFORM:
        if value is None or isinstance(value, str):
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates string() contract")
    if value is None or isinstance(value, str):
        return None if value is None else str(value)
    if isinstance(value, int):   # bool too (`True`), but not float: the original engine's rule
        return str(value)
    if isinstance(value, MuranoObject):
        return value.id
    raise errors.ContractViolationException(
        f"Value {format_scalar(value)} violates string() contract")


def c_bool(state: HasMode, value: t.Any) -> t.Any:
    if state.mode != TRANSFORM:
        if value is None or isinstance(value, bool):
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates bool() contract")
    if value is None:
        return None
    return bool(value)


def c_not_null(state: HasMode, value: t.Any) -> t.Any:
    if value is None:
        raise errors.ContractViolationException("null value violates notNull() contract")
    return value


def c_check(state: HasMode, value: t.Any, passed: bool, message: t.Any) -> t.Any:
    if isinstance(value, ObjRef) or passed:
        return value
    raise errors.ContractViolationException(
        message or f"Value {format_scalar(value)} doesn't match predicate")


_Step = t.Callable[[HasMode, t.Any], t.Any]
# the contract methods without arguments a fast expression calls directly
_SIMPLE_METHODS: dict[str, _Step] = {"int": c_int, "string": c_string, "bool": c_bool,
                                     "notNull": c_not_null}
# the types of the values each of them gives back as they are, in every mode
# (exact types: bool is no int here, and int(True) would change it)
_UNCHANGED: dict[_Step, frozenset[type]] = {
    c_int: frozenset((int, type(None))), c_string: frozenset((str, type(None))),
    c_bool: frozenset((bool, type(None))), c_not_null: _PLAIN - frozenset((type(None),))}


def c_owned(state: ContractState, value: t.Any, owned: bool) -> t.Any:
    if value is None or isinstance(value, ObjRef):
        return value
    if not isinstance(value, MuranoObject):
        raise errors.ContractViolationException(f"Value {format_scalar(value)} is not an object")
    this = state.this
    is_owned = find_owner(value, lambda o: o is getattr(this, "real_this", this)) is not None
    if is_owned != owned:
        kind = "owned" if owned else "notOwned"
        raise errors.ContractViolationException(f"Object {value} violates {kind}() contract")
    return value


def c_class(state: ContractState, value: t.Any, type_: MuranoClass,
            default_type: MuranoClass | None, version_spec: t.Any) -> t.Any:
    executor = state.executor
    if value is None:
        return None
    if isinstance(value, ObjRef):
        value = value.object_id
    if state.mode == TRANSFORM:
        if isinstance(value, (dict, utils.FrozenDict)):
            value = executor.load_object(value, state.owner, default_type or type_,
                                         scope_type=state.calling_type or state.declaring_type)
        elif isinstance(value, str):
            found = executor.find_object(value)
            if found is None:
                if executor.loading:
                    return ObjRef(value)
                raise errors.NoObjectFoundError(value)
            value = found
    if not isinstance(value, MuranoObject):
        if state.mode == TRANSFORM:
            raise errors.ContractViolationException(
                f"Value {format_scalar(value)} cannot be represented as class {type_.name}")
        raise errors.ContractViolationException("Value is not an object")
    if not executor.is_instance_of(value, type_, version_spec, state.declaring_type):
        raise errors.ContractViolationException(incompatibility(
            value.real_this.type, type_, version_spec, state.declaring_type))
    return value


def c_template(state: ContractState, value: t.Any, type_: MuranoClass,
               default_type: MuranoClass | None, version_spec: t.Any,
               exclude: t.Any) -> t.Any:
    executor = state.executor
    if value is None:
        return None
    if isinstance(value, MuranoObject):
        if not executor.is_instance_of(value, type_, version_spec, state.declaring_type):
            raise errors.ContractViolationException(
                f"Object of type {value.type.name} is not compatible with requested type "
                f"{type_.name}")
        return executor.serialize_object(value)
    if not isinstance(value, (dict, utils.FrozenDict)):
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} cannot be represented as class {type_.name}")
    template_type = executor.template_type(value, default_type or type_,
                                           state.calling_type or state.declaring_type)
    if not template_type.is_subclass_of(type_):
        raise errors.ContractViolationException(
            f"Object of type {template_type.name} is not compatible with requested type "
            f"{type_.name}")
    if exclude:
        value = utils.FrozenDict((k, v) for k, v in value.items() if k not in set(exclude))
    return value
