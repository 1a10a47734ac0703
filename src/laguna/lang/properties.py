"""Property access of objects and classes: every write goes through the
property's contracts (each declaration up the hierarchy validates, the
ultimate one converts), static properties live in the executor's table.

The functions take the executor first and are bound as its methods
(``Executor.set_property``...), so compiled code and contracts reach them
in one call; this module never imports the executor.
"""

from __future__ import annotations

import typing as t

from laguna.lang import errors
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import NO_VALUE, Frame
from laguna.lang.types import WRITABLE_USAGES, MuranoClass, Property, PropertyUsage

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor


def set_property(executor: Executor, obj: MuranoObject, name: str, value: t.Any,
                 frame: Frame | None, *, owner_check: bool = True) -> None:
    """Write property ``name`` of ``obj`` as code of ``frame``'s class would."""
    root = obj.real_this
    caller = frame.cls if frame is not None else None
    derived = caller is not None and caller in root.type.ancestry
    start = caller if derived else root.type
    assert start is not None
    if start.find_properties(name):
        specs = root.type.all_property_specs(name)
        ultimate = root.type.find_property(name)
        assert ultimate is not None
        if frame is not None and owner_check and not frame.allow_writes:
            for spec in specs:
                if spec.usage not in WRITABLE_USAGES or not derived:
                    raise errors.NoWriteAccessError(name)
        write_declared(executor, root, name, value, frame, ultimate, specs)
    elif derived:
        root.cast(start).private[name] = value
    else:
        raise errors.PropertyWriteError(name, start.name)


def write_declared(executor: Executor, root: MuranoObject, name: str, value: t.Any,
                   frame: Frame | None, ultimate: Property, specs: list[Property]) -> None:
    """Write property ``name`` of ``root`` (a root object) whose declarations
    are ``specs`` (``ultimate`` the one that converts), access already
    granted: what :func:`set_property` does once it has found them."""
    try:
        value = ultimate.contract.apply(value, executor=executor, this=root, owner=root,
                                        default=property_default(executor, ultimate),
                                        caller=frame)
        # the other declarations check what the ultimate one made of the
        # value (objects, not their model dicts)
        for spec in specs:
            if spec is ultimate:
                continue
            spec.contract.apply(value, executor=executor, this=root, owner=root,
                                mode="validate", default=property_default(executor, spec),
                                caller=frame)
    except errors.ContractViolationException as exc:
        if exc.target is None:   # else a property of an object in the value failed
            exc.target = f"property {ultimate.declaring_type.name}.{name}"
            exc.contract = ultimate.contract.text
            exc.declared_at = ultimate.span
        raise
    if ultimate.usage is PropertyUsage.Static:
        executor.statics[ultimate] = value
    else:
        root.values[name] = value


def property_default(executor: Executor, spec: Property) -> t.Any:
    """A property's Default, or the value its class's configuration file
    gives it (for every property but static ones, as the original engine did)."""
    configs = executor.class_configs
    if configs is None or spec.usage is PropertyUsage.Static:
        return spec.default
    cls = spec.declaring_type
    return configs.values(cls.name, cls.version).get(spec.name, spec.default)


def get_static_property(executor: Executor, cls: MuranoClass, name: str,
                        caller: MuranoClass | None) -> t.Any:
    """A static property's value, its Default on first read."""
    prop = static_property(cls, name)
    if prop in executor.statics:
        return executor.statics[prop]
    home = prop.declaring_type
    frame = Frame(executor, home.ref, None, home, None)
    value = prop.contract.apply(NO_VALUE, executor=executor, this=home.ref,
                                default=prop.default, caller=frame)
    executor.statics[prop] = value
    return value


def set_static_property(executor: Executor, cls: MuranoClass, name: str, value: t.Any,
                        frame: Frame | None) -> None:
    prop = static_property(cls, name)
    executor.statics[prop] = prop.contract.apply(value, executor=executor,
                                                 this=prop.declaring_type.ref, caller=frame)


def static_property(cls: MuranoClass, name: str) -> Property:
    """The one static property ``name`` of ``cls`` and its ancestors."""
    found = [p for p in cls.find_properties(name) if p.usage is PropertyUsage.Static]
    if not found:
        raise errors.NoPropertyFound(name)
    if len(found) > 1:
        raise errors.AmbiguousPropertyNameError(name)
    return found[0]


__all__ = ["get_static_property", "property_default", "set_property", "set_static_property",
           "static_property"]
