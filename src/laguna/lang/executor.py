"""The executor: one MuranoPL session with its classes, objects and statics.

Flow of a call: :meth:`Executor.invoke` binds the arguments
(:mod:`arguments`), opens a :class:`Frame` and a :class:`Scope` with `$this`
and the arguments, and runs the body; the body's compiled expressions call
:mod:`dispatch` for attribute reads and method calls, which land here again.

The executor holds a session's state and its call path; every other concern
is a module of its own that this one imports and that never imports it back:
objects are built by :mod:`loading`, properties written by
:mod:`properties`, objects die in :mod:`lifecycle`, models are written by
:mod:`serializer`, actions found by :mod:`actions`, Python errors become
MuranoPL ones in :mod:`tracebacks`.
"""

from __future__ import annotations

import threading
import time
import typing as t

from laguna.errors import LagunaError
from laguna.lang import errors, functions, limits, properties, serializer
from laguna.lang.actions import (
    ActionResult, check_action, find_action, find_action_class, invoke_action,
)
from laguna.lang.arguments import apply_argument, bind_arguments
from laguna.lang.classconfig import ClassConfigs
from laguna.lang.dispatch import freeze
from laguna.lang.functions import FunctionTable
from laguna.lang.lifecycle import Lifecycle
from laguna.lang.loading import ObjectLoader
from laguna.lang.macros import ConstantData, compiled_data
from laguna.lang.objects import MuranoObject, ObjectStore
from laguna.lang.resolution import instance_class
from laguna.lang.scope import Frame, Scope, child_scope, method_scope
from laguna.lang.synchronize import MethodLocks
from laguna.lang.tracebacks import stack_frames, to_murano_error
from laguna.lang.types import Method, MuranoClass
from laguna.yaql import engine as yaql_engine

if t.TYPE_CHECKING:
    from laguna.lang.classes import ClassRegistry


class _RootContexts(dict[bool, t.Any]):
    """The root context of each flavour (legacy or not), built when a class of
    that flavour first runs: building one takes ~25 ms in a new process, and a
    deploy seldom holds a Format 1.0/1.1 package."""

    def __init__(self, table: FunctionTable) -> None:
        super().__init__()
        self._table = table

    def __missing__(self, legacy: bool) -> t.Any:
        context = self[legacy] = functions.engine_context(self._table, legacy)
        return context


class Executor:
    """Runs MuranoPL code of the classes a :class:`ClassRegistry` provides."""

    def __init__(self, classes: ClassRegistry,
                 limits: yaql_engine.Limits = yaql_engine.DEFAULT_LIMITS,
                 class_configs: ClassConfigs | None = None,
                 host: functions.Host | None = None) -> None:
        self.classes = classes
        # what config() and decryptData() answer (lang/functions/host.py)
        self.host = host if host is not None else functions.Host()
        self.limits = limits
        # where `Usage: Config` values come from (laguna.config's class_configs
        # at the program's edge); None: every property keeps its Default
        self.class_configs = class_configs
        # `?` keys starting with "_" of loaded objects (UI data, `_actions`),
        # given back unchanged when the model is serialised
        self.designer_attributes: dict[str, dict[str, t.Any]] = {}
        # what host code lends native methods for this run (the core library's
        # laguna.corelib.services); the language never looks inside
        self.host_services: t.Any = None
        self.objects = ObjectStore()
        self.lifecycle = Lifecycle(self)   # reachability, GC, `.destroy` (lang/lifecycle.py)
        self.loader = ObjectLoader(self)   # new(), object models, `.init` (lang/loading.py)
        self.attributes: dict[str, dict[tuple[str, str], t.Any]] = {}
        self.statics: dict[t.Any, t.Any] = {}
        # the functions compiled code calls: the registry's, so that the
        # root contexts hold the same yaql functions the compiler saw
        self.functions: FunctionTable = classes.functions
        self.yaql_engines = {legacy: yaql_engine.create_engine(legacy, limits)
                             for legacy in (True, False)}
        # yaql's standard library and the table's functions, then the layer of
        # the original engine's functions (legacy ones for Format 1.0/1.1)
        self._roots = _RootContexts(self.functions)
        self._deadline: float | None = None
        self._memory_base: int | None = None
        self._lock = threading.RLock()
        # calls serialised while pselect, psuper or Parallel run threads (lang/synchronize.py)
        self.method_locks = MethodLocks()

    # -- classes ------------------------------------------------------------------------
    def find_class(self, name: str, requester: MuranoClass | None = None) -> MuranoClass:
        return self.classes.find(name, requester.package if requester is not None else None)

    def new_scope(self, cls: MuranoClass) -> Scope:
        return child_scope(self._roots[cls.package.legacy], {})

    # -- limits -----------------------------------------------------------------------
    def tick(self) -> None:
        """Called on every loop iteration and call: enforces the time limit."""
        deadline = self._deadline
        if deadline is not None and time.monotonic() > deadline:
            raise limits.exceeded(self.limits, "execution_seconds")

    def run(self, fn: t.Callable[[], t.Any], seconds: float | None = None) -> t.Any:
        """Run a top-level call under the execution-time limit (or ``seconds``
        when given); the size limits hold for code without a scope too
        (:mod:`laguna.lang.limits`)."""
        outermost = self._deadline is None
        if outermost:
            self._deadline = time.monotonic() + (
                self.limits.execution_seconds if seconds is None else seconds)
            # run_memory counts what the process gains from here on
            self._memory_base = limits.resident_bytes()
        try:
            with limits.activated(self.limits, self._deadline, self._memory_base):
                return fn()
        finally:
            if outermost:
                self._deadline = None

    def expire(self) -> None:
        """End the top-level call under way at its next call or loop step, in
        every thread that runs it (a deploy interrupted while its applications
        run in threads: they stop rather than deploy on)."""
        if self._deadline is not None:
            self._deadline = 0.0

    # -- calls --------------------------------------------------------------------------
    def invoke(self, method: Method, this: t.Any, args: t.Sequence[t.Any],
               kwargs: dict[str, t.Any], caller: Frame | None) -> t.Any:
        if self.method_locks.parallel:
            return self.method_locks.call(self, method, this, args, kwargs, caller,
                                          self._invoke)
        return self._invoke(method, this, args, kwargs, caller)

    def _invoke(self, method: Method, this: t.Any, args: t.Sequence[t.Any],
                kwargs: dict[str, t.Any], caller: Frame | None) -> t.Any:
        if caller is not None and caller.depth >= self.limits.call_depth:
            raise limits.exceeded(self.limits, "call_depth")
        deadline = self._deadline
        if deadline is not None and time.monotonic() > deadline:   # tick(), inlined
            raise limits.exceeded(self.limits, "execution_seconds")
        if isinstance(this, MuranoObject):
            this = this.real_this
            if this.destroyed:
                raise errors.ObjectDestroyedError(this)
        method_locals = method.locals
        simple = (method.native is None and not kwargs and method_locals is not None
                  and len(args) == len(method_locals))
        data = {"$1": this, "$this": this}
        try:
            if simple:
                # every argument by position, written into the scope's data
                # under its variable name ('$n'): the scope made in one step
                for (key, argument), value in zip(method_locals or (), args):
                    # (Contract.apply's first test, without its call)
                    data[key] = value if type(value) in argument.contract.unchanged else (
                        apply_argument(self, method, argument, value, this, caller))
            else:
                values = bind_arguments(self, method, this, args, kwargs, caller)
        except (LagunaError, errors.FlowSignal):
            raise   # the engine's own errors get their MuranoPL stack where they are caught
        except Exception as exc:
            # a contract's expression failed in yaql (``$.class(t.Missing)``): a
            # MuranoPL error at the call, never a Python traceback
            raise to_murano_error(exc, caller) from exc
        if method.native is not None:
            native_this = this.cast(method.declaring_type) if isinstance(
                this, MuranoObject) else this
            frame = Frame(self, this, method, method.declaring_type, caller)
            try:
                return freeze(method.native(self, native_this, frame, **values))
            except (errors.MuranoPlError, errors.FlowSignal):
                raise
            except Exception as exc:
                # a Python error of native code: MuranoPL sees it by its Python
                # name with the MuranoPL frames up to the call (the original
                # engine's from_python_exception); the native frame itself has
                # no MuranoPL location
                raise to_murano_error(exc, caller) from exc
        frame = Frame(self, this, method, method.declaring_type, caller)
        if not simple:
            for name, value in values.items():
                data["$" + name] = value
        frame.locals = method_scope(self._roots[method.declaring_type.package.legacy], data,
                                    frame)
        body = method.body
        return None if body is None else body.run(frame.locals)

    def call(self, obj: MuranoObject | MuranoClass, method_name: str, *args: t.Any,
             **kwargs: t.Any) -> t.Any:
        """Call a method from outside MuranoPL (host code, the test runner)."""
        if isinstance(obj, MuranoClass):
            method = obj.find_method(method_name)
            this: t.Any = obj.ref
        else:
            method = obj.type.find_method(method_name)
            this = obj
        args = tuple(freeze(a) for a in args)
        kwargs = {k: freeze(v) for k, v in kwargs.items()}
        return self.run(lambda: self.invoke(method, this, args, kwargs, None))

    def branch_frame(self, frame: Frame) -> Frame:
        """A copy of ``frame`` for one branch of a Parallel block."""
        branch = Frame(self, frame.this, frame.method, frame.cls, frame.caller,
                       frame.allow_writes)
        branch.locals = frame.locals
        branch.depth = frame.depth
        branch.exception = frame.exception
        return branch

    # -- data -------------------------------------------------------------------------
    def evaluate_data(self, value: t.Any, frame: Frame) -> t.Any:
        """A YAML value whose leaves may be expressions, evaluated as code of
        ``frame`` (meta values, defaults of contracts)."""
        if value is None or isinstance(value, (int, float, str)):
            return value
        legacy = frame.cls.package.legacy
        fn = compiled_data(value, legacy, self.functions)
        if type(fn) is ConstantData:
            return fn.value
        this = frame.this
        scope = child_scope(self._roots[legacy], {"$1": this, "$this": this})
        scope.frame = frame
        return fn(scope)

    # -- properties (lang/properties.py) ----------------------------------------------
    set_property = properties.set_property
    property_default = properties.property_default
    get_static_property = properties.get_static_property
    set_static_property = properties.set_static_property

    # -- objects (lang/loading.py) ------------------------------------------------------
    @property
    def loading(self) -> bool:
        """True while an object graph is being created (contracts let references
        to objects not created yet pass)."""
        return self.loader.loading

    def is_instance_of(self, obj: MuranoObject, cls: MuranoClass, version_spec: t.Any,
                       scope_type: MuranoClass | None) -> bool:
        return instance_class(obj.real_this.type, cls, version_spec, scope_type) is not None

    def template_type(self, value: t.Any, default: MuranoClass,
                      scope_type: MuranoClass) -> MuranoClass:
        return self.loader.template_type(value, default, scope_type)

    def new_object(self, cls: MuranoClass, owner: MuranoObject | None,
                   properties: dict[str, t.Any], *, object_id: str | None = None,
                   name: str | None = None, frame: Frame | None = None) -> MuranoObject:
        """Create and initialise an object (what `new()` does)."""
        return self.loader.new_object(cls, owner, properties, object_id=object_id, name=name,
                                      frame=frame)

    def load_object(self, value: t.Any, owner: MuranoObject | None,
                    default_type: MuranoClass | None,
                    scope_type: MuranoClass | None = None, *,
                    fresh_ids: bool = False) -> MuranoObject:
        """An object from its model representation (see :mod:`loading`)."""
        return self.loader.load_object(value, owner, default_type, scope_type,
                                       fresh_ids=fresh_ids)

    def find_object(self, object_id: str) -> MuranoObject | None:
        """The object an id of a model being loaded names (see :mod:`loading`)."""
        return self.loader.find(object_id)

    def load_model(self, data: t.Any) -> MuranoObject | None:
        """Build the objects of an object model: `Objects` (the root),
        `ObjectsCopy` (objects of the previous deployment) and `Attributes`."""
        return self.loader.load_model(data)

    # -- objects' life (lang/lifecycle.py) ----------------------------------------------
    def collect_garbage(self) -> int:
        """Destroy every object nothing refers to any more (their `.destroy`
        runs, owned objects first); the number of objects destroyed."""
        return self.lifecycle.collect()

    def load_deployment(self, data: t.Any) -> MuranoObject | None:
        """Start a deployment, as the original engine did: load the model
        (`Objects` and the previous deployment's `ObjectsCopy`), keep its root
        alive for the host, then collect garbage, which destroys the objects of
        `ObjectsCopy` that are no longer in `Objects`."""
        root = self.load_model(data)
        if root is not None:
            self.lifecycle.roots.append(root)
        self.collect_garbage()
        return root

    def finalize(self, root: MuranoObject | None) -> dict[str, t.Any] | None:
        """End a deployment: destroy the objects outside the model of ``root``,
        return the model (`Objects`, `ObjectsCopy`, `Attributes`) and retire
        all objects; this executor has no objects afterwards."""
        return self.lifecycle.finalize(root)

    # -- object models (lang/serializer.py) ---------------------------------------------
    def serialize(self, root: MuranoObject | None) -> dict[str, t.Any]:
        return serializer.serialize_model(root, self)

    def serialize_object(self, obj: MuranoObject) -> t.Any:
        return freeze(serializer.serialize_object(obj, self))

    # -- actions (lang/actions.py) --------------------------------------------------------
    def run_action(self, model: t.Mapping[str, t.Any], action_id: str,
                   parameters: t.Mapping[str, t.Any] | None = None) -> ActionResult:
        """Load ``model`` (an object model, as serialised), run the action whose
        id is ``action_id`` (``<objectId>_<method>``) with keyword ``parameters``,
        and return its result and the model afterwards. Loading errors, an
        unknown or disabled action and a method that is not an action raise; an
        exception the action itself raises is returned in ``error``."""
        root = self.load_model(dict(model))
        obj, method_name = find_action(self, action_id)
        check_action(obj.real_this.type, method_name)
        result, error = self._invoke_action(obj, method_name, parameters)
        return ActionResult(serializer.serialize_result(result, self), self.serialize(root),
                            error)

    def run_static_action(self, class_name: str, method_name: str,
                          parameters: t.Mapping[str, t.Any] | None = None, *,
                          package: str | None = None,
                          version: str | None = None) -> ActionResult:
        """Run static action ``method_name`` (`Scope: Public`, `Usage: Static`)
        of class ``class_name`` with keyword ``parameters``; the class comes
        from ``package`` if given, and from the highest package version
        matching the requirement ``version`` (e.g. ``">=1.2"``) if given. An
        unknown class or a method that is not a static action raise; an
        exception the action raises is returned in ``error``."""
        cls = find_action_class(self, class_name, package, version)
        check_action(cls, method_name, static=True)
        result, error = self._invoke_action(cls, method_name, parameters)
        return ActionResult(serializer.serialize_result(result, self), None, error)

    def _invoke_action(self, target: MuranoObject | MuranoClass, method_name: str,
                       parameters: t.Mapping[str, t.Any] | None
                       ) -> tuple[t.Any, errors.MuranoPlError | None]:
        try:
            return invoke_action(self, target, method_name, parameters), None
        except errors.MuranoPlError as exc:
            return None, exc
        except LagunaError as exc:   # e.g. parameters that do not fit the arguments
            return None, to_murano_error(exc, None)

    # -- errors (lang/tracebacks.py) ------------------------------------------------------
    stack_frames = staticmethod(stack_frames)
    to_murano_error = staticmethod(to_murano_error)

    def exception_object(self, error: errors.MuranoPlError, name: str,
                         frame: Frame) -> MuranoObject:
        """The io.murano.Exception object a `Catch: As:` variable gets."""
        exception_cls = self.find_class("io.murano.Exception")
        trace_cls = self.find_class("io.murano.StackTrace")
        trace = self.new_object(trace_cls, None, {})
        # frames is a Runtime property, which new() does not take from its arguments
        trace.values["frames"] = freeze([
            {"instruction": f.instruction, "location": str(f.span) if f.span else None,
             "methodName": f.method_name, "typeName": f.class_name} for f in error.frames])
        obj = self.new_object(exception_cls, None, {})
        obj.values.update({"name": name, "message": error.message, "stackTrace": trace,
                           "extra": freeze(error.extra), "nativeException": error})
        return obj

    # -- attributes (getAttr / setAttr) ------------------------------------------------
    def get_attr(self, obj: MuranoObject, owner: MuranoClass, name: str) -> t.Any:
        return self.attributes.get(obj.id, {}).get((owner.name, name))

    def set_attr(self, obj: MuranoObject, owner: MuranoClass, name: str, value: t.Any) -> None:
        if isinstance(value, MuranoObject):
            value = value.id
        bucket = self.attributes.setdefault(obj.id, {})
        if value is None:
            bucket.pop((owner.name, name), None)
        else:
            bucket[(owner.name, name)] = value


__all__ = ["Executor"]
