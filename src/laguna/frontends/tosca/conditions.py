"""Condition clauses (TOSCA 1.3 section 3.6.25): workflow preconditions and step filters.

A list of clauses holds when each holds. A clause is one of::

    and: [clause, ...]          # each holds
    or: [clause, ...]           # at least one holds
    not: [clause, ...]          # not all of them hold
    assert: [{ATTRIBUTE: [constraint clause, ...]}, ...]
    ATTRIBUTE: [constraint clause, ...]     # a direct assertion

An attribute is read from the instance as it is now: ``state`` is its TOSCA
node state; other names are its attributes (operation outputs included), else
the node's declared attribute or property value when that is not a function.
Script outputs are text, so a text value is read as YAML (``"3"`` compares as
3) when the constraint compares it with a number or a boolean.
"""

from __future__ import annotations

import typing as t

import yaml

from laguna.frontends.tosca import values
from laguna.frontends.tosca.runtime import Instance
from laguna.frontends.tosca.types import is_function

LOGICAL = ("and", "or", "not", "assert")


def shape_problems(clauses: object) -> list[str]:
    """What is wrong with the form of a list of condition clauses (empty: nothing)."""
    if not isinstance(clauses, list):
        return ["a condition is a list of condition clauses"]
    found: list[str] = []
    for clause in clauses:
        if not isinstance(clause, dict) or len(clause) != 1:
            found.append(f"a condition clause is a map of one key, got {clause!r}")
            continue
        ((key, argument),) = clause.items()
        if key in ("and", "or", "not"):
            found += shape_problems(argument)
        elif key == "assert":
            if not isinstance(argument, list) or not all(
                    isinstance(a, dict) and a for a in argument):
                found.append("assert takes a list of {attribute: [constraint clauses]}")
                continue
            for assertion in argument:
                for name, constraints in assertion.items():
                    found += _constraint_problems(str(name), constraints)
        else:
            found += _constraint_problems(str(key), argument)
    return found


def _constraint_problems(name: str, constraints: object) -> list[str]:
    if not isinstance(constraints, list):
        return [f"attribute {name}: a list of constraint clauses is expected"]
    found: list[str] = []
    for constraint in constraints:
        why = values.check_constraint_clause(constraint, "string")
        if why is not None:
            found.append(f"attribute {name}: {why[1]}")
    return found


def unmet(clauses: t.Sequence[t.Any], instance: Instance) -> str | None:
    """Why ``clauses`` do not hold for ``instance``; None when they hold."""
    for clause in clauses:
        ((key, argument),) = clause.items()
        if key == "and":
            why = unmet(argument, instance)
        elif key == "or":
            reasons = [unmet([c], instance) for c in argument]
            why = None if any(r is None for r in reasons) else \
                "none of these holds: " + "; ".join(str(r) for r in reasons)
        elif key == "not":
            why = "it is not the case that " + _describe(argument) \
                if unmet(argument, instance) is None else None
        elif key == "assert":
            why = next((w for a in argument for name, constraints in a.items()
                        if (w := _assertion(instance, str(name), constraints)) is not None),
                       None)
        else:
            why = _assertion(instance, str(key), argument)
        if why is not None:
            return why
    return None


def _assertion(instance: Instance, name: str, constraints: t.Sequence[t.Any]) -> str | None:
    value = read(instance, name)
    for constraint in constraints:
        ((_, argument),) = constraint.items()
        why = values.check_constraint(constraint, "string", _typed(value, argument))
        if why is not None:
            return f"{name} {why}"
    return None


def read(instance: Instance, name: str) -> t.Any:
    """Attribute ``name`` of ``instance`` as a condition sees it."""
    if name == "state":
        return instance.state
    if name in instance.attributes:
        return instance.attributes[name]
    for declared in (instance.node.attributes, instance.node.properties):
        if name in declared and not is_function(declared[name]):
            return declared[name]
    return None


def _typed(value: t.Any, argument: t.Any) -> t.Any:
    sample = argument[0] if isinstance(argument, list) and argument else argument
    if isinstance(value, str) and isinstance(sample, (int, float, bool)):
        try:
            loaded = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        return loaded if isinstance(loaded, (int, float, bool)) else value
    return value


def _describe(clauses: t.Sequence[t.Any]) -> str:
    """A clause list as text: ``state equal 'started' and ...``."""
    parts: list[str] = []
    for clause in clauses:
        ((key, argument),) = clause.items()
        if key in ("and", "or", "not"):
            parts.append(f"{key} ({_describe(argument)})")
        elif key == "assert":
            parts.append(_describe(argument))
        else:
            parts += [f"{key} {op} {value!r}" for constraint in argument
                      for op, value in constraint.items()]
    return " and ".join(parts)
