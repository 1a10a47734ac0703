"""TOSCA's intrinsic functions: static checks (every name a function uses
exists) and evaluation against a running topology.

get_attribute and get_operation_output block at run time until the value is
truthy (seed 003: AMP's ``attributeWhenReady``); the :class:`Resolver` does
the waiting.
"""

from __future__ import annotations

import json
import typing as t

from laguna.frontends.tosca.problems import BAD_FUNCTION
from laguna.frontends.tosca.types import FUNCTIONS, is_function

KEYWORDS = ("SELF", "SOURCE", "TARGET", "HOST")


class Scope(t.Protocol):
    """What the static checks know of the topology."""

    inputs: t.Collection[str]

    def node_names(self) -> t.Collection[str]: ...
    def relationship_names(self) -> t.Collection[str]: ...
    def has_type(self, type_name: str) -> bool: ...
    def properties_of(self, node: str) -> t.Collection[str]: ...
    def capabilities_of(self, node: str) -> t.Mapping[str, t.Collection[str]]: ...
    def requirements_of(self, node: str) -> t.Collection[str]: ...
    def artifacts_of(self, node: str) -> t.Collection[str]: ...
    def interfaces_of(self, node: str) -> t.Mapping[str, t.Collection[str]]: ...


Found = list[tuple[str, str, t.Any]]


def check(value: object, scope: Scope, self_node: str | None, relationship: bool = False
          ) -> Found:
    """Every problem of the functions in ``value``; ``self_node`` is the node SELF means
    (None in outputs), ``relationship`` allows SOURCE and TARGET."""
    found: Found = []
    _walk(value, scope, self_node, relationship, found)
    return found


def _walk(value: object, scope: Scope, self_node: str | None, relationship: bool,
          found: Found) -> None:
    if is_function(value):
        ((name, args),) = t.cast(dict[str, t.Any], value).items()
        why = _check_one(name, args, scope, self_node, relationship)
        if why:
            # a function read from AMP's DSL is named as it was written
            label = getattr(value, "dsl", None) or name
            found.append((BAD_FUNCTION, f"{label}: {why}", getattr(value, "span", None)))
        if isinstance(args, list):
            for arg in args:
                _walk(arg, scope, self_node, relationship, found)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.startswith("get_") and key not in FUNCTIONS \
                    and len(value) == 1:
                found.append((BAD_FUNCTION, f"unknown function {key!r} (expected one of "
                                            f"{', '.join(sorted(FUNCTIONS))})",
                              getattr(value, "span", None)))
            _walk(item, scope, self_node, relationship, found)
    elif isinstance(value, list):
        for item in value:
            _walk(item, scope, self_node, relationship, found)


def _node(ref: object, scope: Scope, self_node: str | None, relationship: bool,
          host_ok: bool = True) -> tuple[str | None, str | None]:
    """(the node a reference names if statically known, why it is wrong)."""
    if ref == "SELF":
        if self_node is None:
            return None, "SELF is not available here"
        return self_node, None
    if ref in ("SOURCE", "TARGET"):
        if not relationship:
            return None, f"{ref} is only available in a relationship"
        return None, None
    if ref == "HOST":
        if self_node is None or not host_ok:
            return None, "HOST is not available here"
        return None, None
    if not isinstance(ref, str):
        return None, f"expected a node name or {', '.join(KEYWORDS)}, got {ref!r}"
    if ref not in scope.node_names():
        if ref in scope.relationship_names():
            return None, None   # a relationship template: read at run time
        return None, f"unknown node template {ref!r}"
    return ref, None


def _check_one(name: str, args: object, scope: Scope, self_node: str | None,
               relationship: bool) -> str | None:
    if name == "get_input":
        key = args[0] if isinstance(args, list) and args else args
        if not isinstance(key, str):
            return f"expected an input name, got {args!r}"
        if key not in scope.inputs:
            return f"unknown input {key!r}"
        return None
    if name in ("concat", "join", "token"):
        if not isinstance(args, list):
            return "expected a list of arguments"
        if name == "join" and not (1 <= len(args) <= 2 and (isinstance(args[0], list)
                                                             or is_function(args[0]))):
            return "expected [ [values...], delimiter ]"
        if name == "token" and (len(args) != 3 or not isinstance(args[1], str)
                                or not isinstance(args[2], int)):
            return "expected [ string, separators, index ]"
        return None
    if name == "get_node_of_type":
        type_name = args[0] if isinstance(args, list) and args else args
        if not isinstance(type_name, str) or not scope.has_type(type_name):
            return f"unknown node type {type_name!r}"
        return None
    if not isinstance(args, list) or len(args) < 2:
        return "expected [ node, name, ... ]"
    node, why = _node(args[0], scope, self_node, relationship)
    if why:
        return why
    if node is None:
        return None    # SOURCE/TARGET/HOST: known at run time
    if name == "get_property":
        capabilities = scope.capabilities_of(node)
        first = args[1]
        if first in capabilities or first in scope.requirements_of(node):
            if len(args) >= 3 and first in capabilities and args[2] not in capabilities[first]:
                return f"capability {first!r} of {node!r} has no property {args[2]!r}"
            return None
        if first not in scope.properties_of(node):
            return f"node {node!r} has no property {first!r}"
        return None
    if name == "get_attribute":
        capabilities = scope.capabilities_of(node)
        if not isinstance(args[1], str):
            return f"expected an attribute name, got {args[1]!r}"
        return None
    if name == "get_operation_output":
        if len(args) != 4:
            return "expected [ node, interface, operation, output ]"
        interfaces = scope.interfaces_of(node)
        interface, operation = args[1], args[2]
        if interface not in interfaces:
            return f"node {node!r} has no interface {interface!r}"
        if operation not in interfaces[interface]:
            return f"interface {interface!r} of {node!r} has no operation {operation!r}"
        return None
    if name == "get_artifact":
        if args[1] not in scope.artifacts_of(node):
            return f"node {node!r} has no artifact {args[1]!r}"
        return None
    return None  # pragma: no cover - every function is handled above


# -- evaluation ---------------------------------------------------------------------------

class Resolver(t.Protocol):
    """What evaluation reads from a running topology."""

    def input(self, name: str) -> t.Any: ...
    def property(self, ref: str, path: list[t.Any]) -> t.Any: ...
    def attribute(self, ref: str, path: list[t.Any]) -> t.Any: ...
    def operation_output(self, ref: str, interface: str, operation: str, name: str) -> t.Any: ...
    def artifact(self, ref: str, name: str) -> t.Any: ...
    def nodes_of_type(self, type_name: str) -> list[str]: ...


def evaluate(value: t.Any, resolver: Resolver) -> t.Any:
    """``value`` with every function call replaced by its result."""
    if is_function(value):
        ((name, args),) = value.items()
        return _call(name, args, resolver)
    if isinstance(value, dict):
        return {str(k): evaluate(v, resolver) for k, v in value.items()}
    if isinstance(value, list):
        return [evaluate(v, resolver) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def _call(name: str, args: t.Any, resolver: Resolver) -> t.Any:
    if name == "get_input":
        if isinstance(args, list):
            result = resolver.input(str(args[0]))
            for step in args[1:]:
                result = result[step]
            return result
        return resolver.input(str(args))
    if name == "concat":
        return "".join(text(evaluate(a, resolver)) for a in args)
    if name == "join":
        items = evaluate(args[0], resolver)
        delimiter = evaluate(args[1], resolver) if len(args) > 1 else ""
        return str(delimiter).join(text(i) for i in items)
    if name == "token":
        whole, separators, index = text(evaluate(args[0], resolver)), args[1], args[2]
        parts = [whole]
        for separator in separators:
            parts = [piece for part in parts for piece in part.split(separator)]
        return parts[index] if -len(parts) <= index < len(parts) else None
    if name == "get_node_of_type":
        return resolver.nodes_of_type(str(args[0] if isinstance(args, list) else args))
    ref = str(args[0])
    if name == "get_property":
        return resolver.property(ref, list(args[1:]))
    if name == "get_attribute":
        return resolver.attribute(ref, list(args[1:]))
    if name == "get_operation_output":
        return resolver.operation_output(ref, str(args[1]), str(args[2]), str(args[3]))
    if name == "get_artifact":
        return resolver.artifact(ref, str(args[1]))
    raise ValueError(f"unknown function {name}")  # pragma: no cover


def text(value: object) -> str:
    """A value as scripts and concat see it: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, default=str)


def truthy(value: object) -> bool:
    """AMP's readiness: non-null, non-blank, non-zero and non-false."""
    if value is None or value is False:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    return True
