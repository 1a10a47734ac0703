"""Objects' life after creation: which objects are alive, and how the others die.

An object stays alive while something refers to it: the host (the model root
of a deployment, see :meth:`Lifecycle.roots`), a static property, a running
method (its `$this`, arguments and local variables, in any thread), or the
Python code of the engine holding it in a local variable; from there, the
objects it refers to in its properties (declared and private ones) and its
owner. An owner does not keep the objects it owns alive; an owned object
keeps its owner alive (the original engine relied on Python's reference
counting for this, laguna walks the same references explicitly).

:meth:`Lifecycle.collect` (``io.murano.system.GC.collect()`` in MuranoPL)
destroys every initialised object nothing refers to any more:

1. the doomed objects are ordered: each one gets a level, one more than the
   highest level among its owner and its destruction subscribers that are
   doomed too (so an owned object is deeper than its owner);
2. destruction handlers (``GC.subscribeDestruction``) run level by level,
   shallow levels first, each called with the doomed object;
3. `.destroy` methods run level by level, deep levels first (owned objects
   before their owners); for one object, the `.destroy` of its own class
   first, then those of its ancestors breadth first, each class once;
4. each object is marked destroyed and leaves the object store.

Errors raised by handlers and `.destroy` methods are logged and otherwise
ignored, as the original engine did: one failing object must not stop the
others from being cleaned up. Destroying may drop more objects (a
`.destroy` clearing a property), so collection repeats until nothing is left.
"""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import logging
import sys
import threading
import typing as t
import weakref

from yaql.language import contexts, utils

from laguna.lang import errors
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import Frame, local_values
from laguna.lang.types import PropertyUsage

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor

_log = logging.getLogger(__name__)

_THIS_FILE = __file__

# properties that are not part of the object model: objects only they refer
# to do not survive the end of a deployment
_NOT_IN_MODEL = (PropertyUsage.Runtime, PropertyUsage.Config, PropertyUsage.Static)

_SCALARS = (str, int, float, bool, type(None), bytes)


@dataclasses.dataclass(eq=False)
class Subscription:
    """One destruction dependency of a publisher: notify ``subscriber`` (by
    calling its method ``handler``, when there is one) before the publisher
    is destroyed, and destroy the publisher before the subscriber.

    The subscriber is held weakly (a subscription keeps nothing alive); one
    restored from an object model knows only the subscriber's id until the
    object is looked up.
    """

    subscriber_id: str
    handler: str | None
    ref: weakref.ref[MuranoObject] | None = None


class Lifecycle:
    """Reachability, garbage collection and destruction for one executor."""

    def __init__(self, executor: Executor) -> None:
        self._executor = weakref.ref(executor)
        #: objects the host holds (the model root of a deployment)
        self.roots: list[MuranoObject] = []
        #: objects sentenced to destruction whose turn has not come yet
        self.pending: set[MuranoObject] = set()
        self._lock = threading.RLock()

    @property
    def executor(self) -> Executor:
        executor = self._executor()
        assert executor is not None
        return executor

    # -- destruction dependencies -----------------------------------------------------
    def subscribe(self, publisher: MuranoObject, subscriber: MuranoObject,
                  handler: str | None) -> None:
        publisher, subscriber = publisher.real_this, subscriber.real_this
        if handler:
            subscriber.type.find_method(handler)     # NoMethodFound / AmbiguousMethodName
        if self._find_subscription(publisher, subscriber, handler) is None:
            publisher.dependencies.append(
                Subscription(subscriber.id, handler or None, weakref.ref(subscriber)))

    def unsubscribe(self, publisher: MuranoObject, subscriber: MuranoObject,
                    handler: str | None) -> None:
        publisher, subscriber = publisher.real_this, subscriber.real_this
        if handler:
            subscriber.type.find_method(handler)
        found = self._find_subscription(publisher, subscriber, handler)
        if found is not None:
            publisher.dependencies.remove(found)

    def _find_subscription(self, publisher: MuranoObject, subscriber: MuranoObject,
                           handler: str | None) -> Subscription | None:
        subscription: Subscription
        for subscription in publisher.dependencies:
            if (subscription.handler == (handler or None)
                    and self._subscriber(subscription) is subscriber):
                return subscription
        return None

    def _subscriber(self, subscription: Subscription) -> MuranoObject | None:
        if subscription.ref is not None:
            return subscription.ref()
        found = self.executor.objects.get(subscription.subscriber_id)
        if found is not None:
            subscription.ref = weakref.ref(found)
        return found

    def restore(self, obj: MuranoObject, header: t.Mapping[str, t.Any]) -> None:
        """Apply the lifecycle part of a model header to a newly loaded object:
        ``destroyed: true`` and ``dependencies: {onDestruction: [...]}``."""
        if header.get("destroyed"):
            obj.destroyed = True
        dependencies = header.get("dependencies")
        if not isinstance(dependencies, collections.abc.Mapping):
            return
        for record in dependencies.get("onDestruction") or ():
            if not isinstance(record, collections.abc.Mapping) or not record.get("subscriber"):
                continue
            subscriber_id = str(record["subscriber"])
            handler = record.get("handler") or None
            if not any(s.subscriber_id == subscriber_id and s.handler == handler
                       for s in obj.dependencies):
                obj.dependencies.append(Subscription(subscriber_id, handler))

    def replay_model_values(self, obj: MuranoObject, properties: t.Mapping[str, t.Any]) -> None:
        """A model defines an object that exists already (``ObjectsCopy`` after
        ``Objects``): its values stay as they are, but the model's values still
        go through the property contracts, results dropped, as the original
        engine did. So objects that only the old model still defines are
        created, owned as they were, and a collection then destroys them."""
        executor = self.executor
        cls = obj.type
        frame = Frame(executor, obj, None, cls, None, allow_writes=True)
        for name in cls.property_names():
            spec = cls.find_property(name)
            if spec is None or spec.usage in _NOT_IN_MODEL or name not in properties:
                continue
            spec.contract.apply(properties[name], executor=executor, this=obj, owner=obj,
                                default=executor.property_default(spec), caller=frame)

    def dependencies_header(self, obj: MuranoObject) -> dict[str, t.Any] | None:
        """The ``dependencies`` entry of ``obj``'s model header (None: no entry).
        Subscribers that are gone or doomed are left out."""
        records = []
        for subscription in obj.real_this.dependencies:
            subscriber = self._subscriber(subscription)
            if subscriber is None or self.is_doomed(subscriber):
                continue
            records.append({"subscriber": subscriber.id, "handler": subscription.handler})
        return {"onDestruction": records} if records else None

    def add_dependency_headers(self, model: t.Any) -> None:
        """Give each object header of a serialised model its ``dependencies``
        (destruction subscriptions), so the next deployment knows them."""
        if isinstance(model, list):
            for item in model:
                self.add_dependency_headers(item)
            return
        if not isinstance(model, dict):
            return
        header = model.get("?")
        if isinstance(header, dict) and "id" in header:
            obj = self.executor.objects.get(str(header["id"]))
            dependencies = self.dependencies_header(obj) if obj is not None else None
            if dependencies is not None:
                header["dependencies"] = dependencies
        for key, value in model.items():
            if key != "?":
                self.add_dependency_headers(value)

    # -- state ------------------------------------------------------------------------
    def is_doomed(self, obj: MuranoObject) -> bool:
        obj = obj.real_this
        return obj.destroyed or obj in self.pending

    # -- collection -------------------------------------------------------------------
    def collect(self) -> int:
        """Destroy every object nothing refers to; the number destroyed."""
        executor = self.executor
        count = 0
        while True:
            alive = self._reachable()
            doomed: list[MuranoObject] = []
            for obj in executor.objects.values():
                if id(obj) in alive or obj in self.pending:
                    continue
                if obj.initialized and not obj.destroyed:
                    doomed.append(obj)
                else:
                    # never finished `.init` (or loaded destroyed): nothing
                    # to undo, so it just goes, as in the original engine
                    self._mark_destroyed(obj)
            if not doomed:
                return count
            count += executor.run(lambda: self.destroy(doomed))

    def destroy(self, doomed: t.Sequence[MuranoObject]) -> int:
        """Destroy ``doomed`` in order (see the module docstring); the number
        of objects destroyed here."""
        # claimed under the lock, so two collections running at once (Parallel
        # branches) never destroy one object twice; destroying itself runs
        # unlocked, as it may wait for such branches
        with self._lock:
            doomed = [obj for obj in dict.fromkeys(o.real_this for o in doomed)
                      if not obj.destroyed and obj not in self.pending]
            self.pending.update(doomed)
        try:
            groups: dict[int, list[MuranoObject]] = {}
            for obj, level in self._levels(doomed).items():
                groups.setdefault(level, []).append(obj)
            for level in sorted(groups):
                for obj in groups[level]:
                    self._signal(obj)
            count = 0
            for level in sorted(groups, reverse=True):
                group = groups[level]
                for obj in group:
                    self._run_destroy(obj)
                for obj in group:
                    if not obj.destroyed:
                        count += 1
                    self._mark_destroyed(obj)
            return count
        finally:
            self.pending.difference_update(doomed)

    def _levels(self, doomed: list[MuranoObject]) -> dict[MuranoObject, int]:
        """Level of each doomed object: 1 + the deepest level among its owner and
        subscribers that are doomed too (others count as 0). In a cycle of
        subscriptions the order is whatever the walk meets first."""
        members = set(doomed)
        levels: dict[MuranoObject, int] = {}
        on_path: set[MuranoObject] = set()

        def level_of(obj: MuranoObject) -> int:
            known = levels.get(obj)
            if known is not None:
                return known
            if obj in on_path:
                return 0
            on_path.add(obj)
            deepest = 0
            for successor in self._successors(obj):
                if successor in members:
                    deepest = max(deepest, level_of(successor))
            on_path.discard(obj)
            levels[obj] = deepest + 1
            return deepest + 1

        for obj in doomed:
            level_of(obj)
        # the doomed list's order (creation order) inside each level
        return {obj: levels[obj] for obj in doomed}

    def _successors(self, obj: MuranoObject) -> list[MuranoObject]:
        result: list[MuranoObject] = []
        if obj.owner is not None:
            result.append(obj.owner.real_this)
        for subscription in obj.dependencies:
            subscriber = self._subscriber(subscription)
            if subscriber is not None and subscriber not in result:
                result.append(subscriber)
        return result

    def _signal(self, obj: MuranoObject) -> None:
        if obj.destroyed:
            return
        executor = self.executor
        for subscription in list(obj.dependencies):
            if not subscription.handler:
                continue
            subscriber = self._subscriber(subscription)
            if subscriber is None or not subscriber.initialized or subscriber.destroyed:
                continue
            try:
                method = subscriber.type.find_method(subscription.handler)
                executor.invoke(method, subscriber, (obj,), {}, None)
            except Exception as exc:  # noqa: BLE001 - muted like the original engine
                _mute(f"destruction handler {subscription.handler} of {subscriber!r} "
                      f"for {obj!r}", exc)
        obj.dependencies = []

    def _run_destroy(self, obj: MuranoObject) -> None:
        if obj.destroyed:
            return
        executor = self.executor
        for cls in obj.type.mro:
            method = cls.methods.get(".destroy")
            if method is None:
                continue
            try:
                executor.invoke(method, obj, (), {}, None)
            except Exception as exc:  # noqa: BLE001 - muted like the original engine
                _mute(f"{cls.name}::.destroy of {obj!r}", exc)

    def _mark_destroyed(self, obj: MuranoObject) -> None:
        executor = self.executor
        obj.destroyed = True
        obj.dependencies = []
        if executor.objects.get(obj.id) is obj:
            executor.objects.remove(obj.id)
        executor.attributes.pop(obj.id, None)

    # -- reachability -----------------------------------------------------------------
    def _reachable(self) -> set[int]:
        """ids (Python ``id()``) of the objects something alive refers to."""
        executor = self.executor
        seeds: list[t.Any] = list(self.roots)
        seeds.extend(executor.statics.values())
        # doomed objects keep what they refer to until their turn comes
        seeds.extend(self.pending)
        seeds.extend(_stack_values(executor))
        return _walk(seeds, follow_owner=True, hidden=True, executor=executor)

    def model_objects(self, root: MuranoObject) -> set[int]:
        """ids of the objects in the object model of ``root``: what its
        properties that are serialised refer to, recursively."""
        return _walk([root], follow_owner=False, hidden=False)

    # -- end of a deployment ----------------------------------------------------------
    def finalize(self, root: MuranoObject | None) -> dict[str, t.Any] | None:
        """End of a deployment: destroy the objects that are not in the model of
        ``root`` (their `.destroy` runs), serialise the model (with
        `ObjectsCopy`), then retire every object without running `.destroy`.
        The executor's objects and static properties are gone afterwards."""
        executor = self.executor
        used = self.model_objects(root) if root is not None else set()
        sentenced = [obj for obj in executor.objects.values()
                     if id(obj) not in used and obj.initialized and not obj.destroyed]
        executor.run(lambda: self.destroy(sentenced))
        model = None
        if root is not None:
            model = executor.serialize(root)
            model["ObjectsCopy"] = copy.deepcopy(model["Objects"])
        for obj in executor.objects.values():
            obj.destroyed = True
            obj.dependencies = []
            executor.objects.remove(obj.id)
        self.pending.clear()
        self.roots.clear()
        executor.statics.clear()
        executor.attributes.clear()
        return model


def _mute(what: str, exc: Exception) -> None:
    """Log an error a destruction step raised; the MuranoPL stack goes to debug."""
    _log.warning("Muted error in %s: %s", what, exc)
    if isinstance(exc, errors.MuranoPlError):
        _log.debug("%s", exc.format("  "))


def _stack_values(executor: t.Any) -> list[t.Any]:
    """Local variables of every Python frame (this module's excepted) of every
    thread running ``executor``'s code: running MuranoPL frames and whatever
    the engine holds. A thread counts when one of its frames holds the
    executor in a local (its methods' ``self``; the thread functions of
    pselect, psuper and Parallel keep it as ``executor``);
    the threads of other deployments in this process (an engine worker's)
    hold other objects, possibly half built, and are passed over."""
    values: list[t.Any] = []
    for top in sys._current_frames().values():
        chain = []
        frame: t.Any = top
        while frame is not None:
            chain.append(frame)
            frame = frame.f_back
        if not any(value is executor for f in chain for value in f.f_locals.values()):
            continue
        for frame in chain:
            if frame.f_code.co_filename != _THIS_FILE:
                values.extend(list(frame.f_locals.values()))
    return values


def _executor_of(obj: MuranoObject) -> t.Any:
    """The executor that made ``obj``; None while the loader has not finished it."""
    reference = getattr(obj, "executor_ref", None)
    return reference() if reference is not None else None


def _walk(seeds: t.Iterable[t.Any], *, follow_owner: bool, hidden: bool,
          executor: t.Any = None) -> set[int]:
    """Objects reachable from ``seeds`` through object references (and, with
    ``follow_owner``, through owners), containers, running frames and scopes.
    With ``hidden`` false only properties that are serialised are followed.
    Destroyed objects are reached but keep nothing alive. With ``executor``,
    objects of other executors are passed over: the frames of every thread are
    seeds, and other threads of the process may run other deployments (an
    engine worker's), their objects possibly half built."""
    objects: set[int] = set()
    seen: set[int] = set()
    stack = list(seeds)
    while stack:
        value = stack.pop()
        if isinstance(value, _SCALARS):
            continue
        if isinstance(value, MuranoObject):
            obj = value.real_this
            if id(obj) in objects:
                continue
            if executor is not None and _executor_of(obj) is not executor:
                continue
            objects.add(id(obj))
            if obj.destroyed:
                continue
            if follow_owner and obj.owner is not None:
                stack.append(obj.owner)
            if hidden:
                stack.extend(obj.values.values())
                for part in obj.parts_created():
                    stack.extend(part.private.values())
                    if isinstance(part.extension, MuranoObject):
                        stack.append(part.extension)
            else:
                for name in obj.type.property_names():
                    spec = obj.type.find_property(name)
                    if spec is not None and spec.usage not in _NOT_IN_MODEL \
                            and name in obj.values:
                        stack.append(obj.values[name])
            continue
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, Frame):
            stack.extend((value.this, value.locals, value.caller, value.exception))
        elif isinstance(value, contexts.ContextBase):
            stack.extend(local_values(value))
            stack.append(value.parent)
        elif isinstance(value, (dict, utils.FrozenDict)):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (tuple, list, set, frozenset)):
            stack.extend(value)
        # anything else (functions, classes, the executor...) is not followed
    return objects


__all__ = ["Lifecycle", "Subscription"]
