"""Contracts: what a property or argument accepts, and how values are converted.

A contract is a YAML structure: a YAQL expression over ``$`` (the value) made
of contract methods (`$.int()`, `$.string()`, `$.bool()`, `$.notNull()`,
`$.check(pred, msg)`, `$.class(T, Default, spec)`, `$.template(T, ...)`,
`$.owned()`, `$.notOwned()`), a list of contracts with optional length
bounds, a dictionary of contracts (one key may be a contract for the other
keys), or a constant the value must equal.

It runs in one of three modes: ``transform`` converts the value (the default,
and it creates objects from dictionaries), ``validate`` only checks an
already converted value (used for the ancestors' declarations of a
redeclared property), ``check`` answers whether the value fits without
creating anything (extension method dispatch).
"""

from __future__ import annotations

import typing as t

from yaql.language import utils

from laguna.lang import errors
from laguna.lang.objects import MuranoObject, find_owner
from laguna.lang.resolution import incompatibility
from laguna.lang.scope import NO_VALUE, Frame, Scope
from laguna.yaql.expressions import YaqlExpression

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor
    from laguna.lang.types import MuranoClass

TRANSFORM, VALIDATE, CHECK = "transform", "validate", "check"


def format_scalar(value: t.Any) -> str:
    if isinstance(value, str):
        return f"'{value}'"
    return str(value)


class ObjRef:
    """A reference by id to an object not loaded yet (model loading only)."""

    __slots__ = ("object_id",)

    def __init__(self, object_id: str) -> None:
        self.object_id = object_id


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
    """A compiled contract of one property or argument."""

    __slots__ = ("spec", "declaring_type", "text")

    def __init__(self, spec: t.Any, declaring_type: MuranoClass) -> None:
        self.spec = spec
        self.declaring_type = declaring_type
        self.text = _spec_text(spec)

    def apply(self, value: t.Any, *, executor: Executor, this: t.Any, owner: t.Any = None,
              mode: str = TRANSFORM, default: t.Any = None,
              caller: Frame | None = None) -> t.Any:
        frame = Frame(executor, this, None, self.declaring_type, caller)
        if value is NO_VALUE:
            value = executor.evaluate_data(default, frame)
        state = ContractState(mode, this, owner, executor,
                              caller.cls if caller is not None else None, self.declaring_type)
        return self._map(value, self.spec, frame, state, "")

    def check(self, value: t.Any, *, executor: Executor, this: t.Any,
              caller: Frame | None = None) -> bool:
        try:
            self.apply(value, executor=executor, this=this, mode=CHECK, caller=caller)
        except errors.ContractViolationException:
            return False
        return True

    # -- structure --------------------------------------------------------
    def _map(self, data: t.Any, spec: t.Any, frame: Frame, state: ContractState,
             path: str) -> t.Any:
        if isinstance(spec, YaqlExpression):
            return self._expression(data, spec, frame, state, path)
        if isinstance(spec, dict):
            return self._map_dict(data, spec, frame, state, path)
        if isinstance(spec, list):
            return self._map_list(data, spec, frame, state, path)
        if data != spec:
            raise errors.ContractViolationException(
                f"Value {format_scalar(data)} is not equal to {spec}", path)
        return data

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
        except errors.ContractViolationException as exc:
            exc.path = path + exc.path
            raise

    def _map_dict(self, data: t.Any, spec: dict[t.Any, t.Any], frame: Frame,
                  state: ContractState, path: str) -> t.Any:
        if data is None:
            data = {}
        if not isinstance(data, (dict, utils.FrozenDict)):
            raise errors.ContractViolationException(
                f"Value {format_scalar(data)} is not of a dictionary type", path)
        if not spec:
            return data
        result: dict[t.Any, t.Any] = {}
        key_contract = None
        for key, value_spec in spec.items():
            if isinstance(key, YaqlExpression):
                if key_contract is not None:
                    raise errors.ContractViolationException(
                        "Dictionary contract cannot have more than one expression key", path)
                key_contract = key
                continue
            result[key] = self._map(data.get(key), value_spec, frame, state,
                                    f"{path}[{format_scalar(key)}]")
        if key_contract is not None:
            value_spec = spec[key_contract]
            for key, value in data.items():
                if key in result:
                    continue
                new_key = self._map(key, key_contract, frame, state, path)
                result[new_key] = self._map(value, value_spec, frame, state,
                                            f"{path}[{format_scalar(new_key)}]")
        return utils.FrozenDict(result)

    def _map_list(self, data: t.Any, spec: list[t.Any], frame: Frame, state: ContractState,
                  path: str) -> t.Any:
        if utils.is_iterator(data):
            data = list(data)
        elif not isinstance(data, (list, tuple)):
            data = [] if data is None else [data]
        if not spec:
            return tuple(data)
        shift, min_length, max_length = 0, 0, -1
        if isinstance(spec[-1], int) and not isinstance(spec[-1], bool):
            min_length = spec[-1]
            shift = 1
            if len(spec) >= 2 and isinstance(spec[-2], int) and not isinstance(spec[-2], bool):
                max_length, min_length = min_length, spec[-2]
                shift = 2
        if max_length >= 0 and not min_length <= len(data) <= max_length:
            raise errors.ContractViolationException(
                f"Array length {len(data)} is not within [{min_length}..{max_length}] range",
                path)
        if len(data) < min_length:
            raise errors.ContractViolationException(
                f"Array length {len(data)} must not be less than {min_length}", path)
        items = spec[:len(spec) - shift]
        if not items:
            return tuple(data)
        result = []
        for index, item in enumerate(data):
            item_spec = items[index] if index < len(items) else items[-1]
            result.append(self._map(item, item_spec, frame, state, f"{path}[{index}]"))
        return tuple(result)


def _spec_text(spec: t.Any) -> str:
    if isinstance(spec, YaqlExpression):
        return spec.text
    if isinstance(spec, dict):
        return "{" + ", ".join(f"{_spec_text(k)}: {_spec_text(v)}" for k, v in spec.items()) + "}"
    if isinstance(spec, list):
        return "[" + ", ".join(_spec_text(v) for v in spec) + "]"
    return repr(spec)


# -- contract methods, called from compiled contract expressions ------------------
def c_int(state: ContractState, value: t.Any) -> t.Any:
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


def c_string(state: ContractState, value: t.Any) -> t.Any:
    if state.mode != TRANSFORM:
        if value is None or isinstance(value, str):
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates string() contract")
    if value is None or isinstance(value, str):
        return None if value is None else str(value)
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, MuranoObject):
        return value.id
    raise errors.ContractViolationException(
        f"Value {format_scalar(value)} violates string() contract")


def c_bool(state: ContractState, value: t.Any) -> t.Any:
    if state.mode != TRANSFORM:
        if value is None or isinstance(value, bool):
            return value
        raise errors.ContractViolationException(
            f"Value {format_scalar(value)} violates bool() contract")
    if value is None:
        return None
    return bool(value)


def c_not_null(state: ContractState, value: t.Any) -> t.Any:
    if value is None:
        raise errors.ContractViolationException("null value violates notNull() contract")
    return value


def c_check(state: ContractState, value: t.Any, passed: bool, message: t.Any) -> t.Any:
    if isinstance(value, ObjRef) or passed:
        return value
    raise errors.ContractViolationException(
        message or f"Value {format_scalar(value)} doesn't match predicate")


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
    if isinstance(value, ObjRef) and executor.loading:
        return value
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


def new_contract_scope(executor: Executor, cls: MuranoClass) -> Scope:
    return executor.new_scope(cls)
