"""The executor: one MuranoPL session with its classes, objects and statics.

Flow of a call: :meth:`Executor.invoke` maps the arguments onto the
method's declaration, passes each through its contract, opens a
:class:`Frame` and a :class:`Scope` with `$this` and the arguments, and runs
the body; the body's compiled expressions call back into :mod:`dispatch`
for attribute reads and method calls, which land here again.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import typing as t

from yaql.language import exceptions as yaql_exceptions
from yaql.language import utils

from laguna.classconfig import ClassConfigFolder
from laguna.lang import builtins as _builtins  # noqa: F401  (registers the functions)
from laguna.lang import errors, functions
from laguna.lang.contracts import ObjRef
from laguna.lang.dispatch import freeze, thaw
from laguna.lang.lifecycle import Lifecycle
from laguna.lang.macros import compile_data
from laguna.lang.objects import MuranoObject, ObjectStore
from laguna.lang.resolution import instance_class
from laguna.lang.scope import NO_VALUE, Frame, Scope
from laguna.lang.types import (
    WRITABLE_USAGES, Method, MuranoClass, PropertyUsage, TypeRef,
)
from laguna.yaql import engine as yaql_engine

if t.TYPE_CHECKING:
    from laguna.lang.classes import ClassRegistry

_RECURSION_FLOOR = 20000


class Executor:
    """Runs MuranoPL code of the classes a :class:`ClassRegistry` provides."""

    def __init__(self, classes: ClassRegistry,
                 limits: yaql_engine.Limits = yaql_engine.DEFAULT_LIMITS,
                 class_configs: ClassConfigFolder | str | os.PathLike[str] | None = None,
                 host: functions.Host | None = None) -> None:
        self.classes = classes
        # what config() and decryptData() answer (lang/functions/host.py)
        self.host = host if host is not None else functions.Host()
        self.limits = limits
        # where `Usage: Config` values come from (laguna.config's class_configs
        # at the program's edge); None: every property keeps its Default
        self.class_configs = (class_configs if class_configs is None
                              or isinstance(class_configs, ClassConfigFolder)
                              else ClassConfigFolder(class_configs))
        # `?` keys starting with "_" of loaded objects (UI data, `_actions`),
        # given back unchanged when the model is serialised
        self.designer_attributes: dict[str, dict[str, t.Any]] = {}
        # what host code lends native methods for this run (the core library's
        # laguna.corelib.services); the language never looks inside
        self.host_services: t.Any = None
        self.objects = ObjectStore()
        self.lifecycle = Lifecycle(self)   # reachability, GC, `.destroy` (lang/lifecycle.py)
        self.attributes: dict[str, dict[tuple[str, str], t.Any]] = {}
        self.statics: dict[t.Any, t.Any] = {}
        self.loading = False
        self.yaql_engines = {legacy: yaql_engine.create_engine(legacy, limits)
                             for legacy in (True, False)}
        self._roots = {legacy: functions.register(yaql_engine.create_root_context(legacy), legacy)
                       for legacy in (True, False)}
        self._deadline: float | None = None
        self._lock = threading.RLock()
        self._pending_init: list[MuranoObject] | None = None
        if sys.getrecursionlimit() < _RECURSION_FLOOR:
            sys.setrecursionlimit(_RECURSION_FLOOR)

    # -- classes ------------------------------------------------------------------------
    def find_class(self, name: str, requester: MuranoClass | None = None) -> MuranoClass:
        return self.classes.find(name, requester.package if requester is not None else None)

    def new_scope(self, cls: MuranoClass) -> Scope:
        return Scope(self._roots[cls.package.legacy])

    # -- limits -----------------------------------------------------------------------
    def tick(self) -> None:
        """Called on every loop iteration and call: enforces the time limit."""
        deadline = self._deadline
        if deadline is not None and time.monotonic() > deadline:
            raise errors.LimitExceededError(
                f"execution time limit of {self.limits.execution_seconds} s exceeded")

    def run(self, fn: t.Callable[[], t.Any]) -> t.Any:
        """Run a top-level call under the execution-time limit."""
        outermost = self._deadline is None
        if outermost:
            self._deadline = time.monotonic() + self.limits.execution_seconds
        try:
            return fn()
        finally:
            if outermost:
                self._deadline = None

    # -- calls --------------------------------------------------------------------------
    def invoke(self, method: Method, this: t.Any, args: t.Sequence[t.Any],
               kwargs: dict[str, t.Any], caller: Frame | None) -> t.Any:
        if caller is not None and caller.depth >= self.limits.call_depth:
            raise errors.LimitExceededError(
                f"call depth limit of {self.limits.call_depth} exceeded")
        if self._deadline is not None:
            self.tick()
        if isinstance(this, MuranoObject):
            this = this.real_this
            if this.destroyed:
                raise errors.ObjectDestroyedError(this)
        values = self._bind_arguments(method, this, args, kwargs, caller)
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
                raise self.to_murano_error(exc, caller) from exc
        frame = Frame(self, this, method, method.declaring_type, caller)
        scope = Scope(self._roots[method.declaring_type.package.legacy])
        scope.frame = frame
        frame.locals = scope
        data = scope._data
        data["$1"] = this
        data["$this"] = this
        for name, value in values.items():
            data["$" + name] = value
        body = method.body
        return None if body is None else body.run(scope)

    def _bind_arguments(self, method: Method, this: t.Any, args: t.Sequence[t.Any],
                        kwargs: dict[str, t.Any], caller: Frame | None) -> dict[str, t.Any]:
        standard = method.standard
        values: dict[str, t.Any] = {}
        varargs: list[t.Any] = []
        extra_kwargs: dict[str, t.Any] = {}
        for index, value in enumerate(args):
            if index < len(standard):
                values[standard[index]] = value
            elif method.varargs is not None:
                varargs.append(value)
            else:
                raise errors.NoMatchingMethod(
                    f"Method {method.name} takes {len(standard)} positional arguments "
                    f"but {len(args)} were given")
        for name, value in kwargs.items():
            argument = method.arguments_by_name.get(name)
            if argument is not None and name not in (method.varargs, method.kwargs):
                if name in values:
                    raise errors.NoMatchingMethod(
                        f"Method {method.name} got multiple values for argument {name}")
                values[name] = value
            elif method.kwargs is not None:
                extra_kwargs[name] = value
            else:
                raise errors.NoMatchingMethod(
                    f"Method {method.name} has no argument named {name}")
        result: dict[str, t.Any] = {}
        for argument in method.arguments:
            name = argument.name
            try:
                if name == method.varargs:
                    result[name] = tuple(
                        argument.contract.apply(v, executor=self, this=this, caller=caller)
                        for v in varargs)
                elif name == method.kwargs:
                    result[name] = utils.FrozenDict(
                        (k, argument.contract.apply(v, executor=self, this=this, caller=caller))
                        for k, v in extra_kwargs.items())
                else:
                    result[name] = argument.contract.apply(
                        values.get(name, NO_VALUE), executor=self, this=this,
                        default=argument.default, caller=caller)
            except errors.ContractViolationException as exc:
                exc.target = f"argument {name} of method {method.declaring_type.name}::{method.name}"
                exc.contract = argument.contract.text
                exc.declared_at = argument.span
                raise
        return result

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

    # -- properties -------------------------------------------------------------------
    def set_property(self, obj: MuranoObject, name: str, value: t.Any,
                     frame: Frame | None, *, owner_check: bool = True) -> None:
        root = obj.real_this
        caller = frame.cls if frame is not None else None
        derived = caller is not None and caller in root.type.ancestry
        start = caller if derived else root.type
        assert start is not None
        if start.find_properties(name):
            specs = root.type.all_property_specs(name)
            ultimate = root.type.find_property(name)
            assert ultimate is not None
            if caller is not None and owner_check and not frame.allow_writes:  # type: ignore[union-attr]
                for spec in specs:
                    if spec.usage not in WRITABLE_USAGES or not derived:
                        raise errors.NoWriteAccessError(name)
            try:
                value = ultimate.contract.apply(value, executor=self, this=root, owner=root,
                                                default=self.property_default(ultimate),
                                                caller=frame)
                # the other declarations check what the ultimate one made of the
                # value (objects, not their model dicts)
                for spec in specs:
                    if spec is ultimate:
                        continue
                    spec.contract.apply(value, executor=self, this=root, owner=root,
                                        mode="validate", default=self.property_default(spec),
                                        caller=frame)
            except errors.ContractViolationException as exc:
                if exc.target is None:   # else a property of an object in the value failed
                    exc.target = f"property {ultimate.declaring_type.name}.{name}"
                    exc.contract = ultimate.contract.text
                    exc.declared_at = ultimate.span
                raise
            if ultimate.usage is PropertyUsage.Static:
                self.statics[ultimate] = value
            else:
                root.values[name] = value
        elif derived:
            root.cast(start).private[name] = value
        else:
            raise errors.PropertyWriteError(name, start.name)

    def property_default(self, spec: t.Any) -> t.Any:
        """A property's Default, or the value its class's configuration file
        gives it (for every property but static ones, as the original engine did)."""
        configs = self.class_configs
        if configs is None or spec.usage is PropertyUsage.Static:
            return spec.default
        cls = spec.declaring_type
        return configs.values(cls.name, cls.version).get(spec.name, spec.default)

    def get_static_property(self, cls: MuranoClass, name: str,
                            caller: MuranoClass | None) -> t.Any:
        prop = self._static_property(cls, name)
        if prop in self.statics:
            return self.statics[prop]
        frame = Frame(self, prop.declaring_type.ref, None, prop.declaring_type, None)
        value = prop.contract.apply(NO_VALUE, executor=self, this=prop.declaring_type.ref,
                                    default=prop.default, caller=frame)
        self.statics[prop] = value
        return value

    def set_static_property(self, cls: MuranoClass, name: str, value: t.Any,
                            frame: Frame | None) -> None:
        prop = self._static_property(cls, name)
        self.statics[prop] = prop.contract.apply(value, executor=self,
                                                 this=prop.declaring_type.ref, caller=frame)

    @staticmethod
    def _static_property(cls: MuranoClass, name: str) -> t.Any:
        found = [p for p in cls.find_properties(name) if p.usage is PropertyUsage.Static]
        if not found:
            raise errors.NoPropertyFound(name)
        if len(found) > 1:
            raise errors.AmbiguousPropertyNameError(name)
        return found[0]

    # -- data -------------------------------------------------------------------------
    def evaluate_data(self, value: t.Any, frame: Frame) -> t.Any:
        if value is None or isinstance(value, (int, float, str)):
            return value
        scope = Scope(self._roots[frame.cls.package.legacy])
        scope.frame = frame
        scope._data["$1"] = frame.this
        scope._data["$this"] = frame.this
        return compile_data(value, frame.cls.package.legacy)(scope)

    # -- objects ----------------------------------------------------------------------
    def is_instance_of(self, obj: MuranoObject, cls: MuranoClass, version_spec: t.Any,
                       scope_type: MuranoClass | None) -> bool:
        return instance_class(obj.real_this.type, cls, version_spec, scope_type) is not None

    def template_type(self, value: t.Any, default: MuranoClass,
                      scope_type: MuranoClass) -> MuranoClass:
        header = value.get("?") if isinstance(value, (dict, utils.FrozenDict)) else None
        if header and header.get("type"):
            return self.classes.find_for_model(str(header["type"]), header, scope_type)
        return default

    def new_object(self, cls: MuranoClass, owner: MuranoObject | None,
                   properties: dict[str, t.Any], *, object_id: str | None = None,
                   name: str | None = None, frame: Frame | None = None) -> MuranoObject:
        """Create and initialise an object (what `new()` does)."""
        return self._load_graph(lambda: self._create(cls, owner, properties, object_id,
                                                     name, None, frame), frame)

    def load_object(self, value: t.Any, owner: MuranoObject | None,
                    default_type: MuranoClass | None,
                    scope_type: MuranoClass | None = None) -> MuranoObject:
        """An object from its model representation: a dict with a "?" header, or
        the short form `{ns:Type: {properties}, id: ..., name: ...}`."""
        header = value.get("?") if isinstance(value, (dict, utils.FrozenDict)) else None
        properties = {k: v for k, v in value.items() if k != "?"}
        short = None if header else _short_form(value)
        if short is not None:
            type_key, props = short
            header = {k: v for k, v in value.items() if k != type_key}
            header["type"] = type_key if not isinstance(type_key, MuranoClass) else type_key.ref
            properties = dict(props or {})
        object_id = name = metadata = None
        cls = default_type
        if header:
            type_name = header.get("type")
            if type_name:
                if isinstance(type_name, TypeRef):
                    cls = type_name.type
                else:
                    # package/version/classVersion pins decide the version
                    cls = self.classes.find_for_model(str(type_name), header,
                                                      scope_type or default_type)
            object_id = header.get("id")
            name = header.get("name")
            metadata = header.get("metadata")
            designer = {str(k): thaw(v) for k, v in header.items() if str(k).startswith("_")}
            if designer and object_id is not None:
                # `Objects` is loaded before `ObjectsCopy`: its UI data wins
                self.designer_attributes.setdefault(str(object_id), designer)
        if cls is None:
            raise errors.DslError("Invalid object representation: no type information "
                                  "was provided")

        def create() -> MuranoObject:
            known = object_id is not None and object_id in self.objects
            obj = self._create(cls, owner, properties, object_id, name, metadata, None)
            if header and not known:
                # `destroyed` and `dependencies` of the header (before `.init` runs)
                self.lifecycle.restore(obj, header)
            return obj
        if self._pending_init is None:
            return self._load_graph(create)
        return create()

    def _load_graph(self, create: t.Callable[[], MuranoObject],
                    frame: Frame | None = None) -> MuranoObject:
        """Load an object graph like the original engine: create every object
        first (a reference to an id not seen yet stays an ObjRef), then set
        the properties that held such references again, then run `.init` of
        each new object, owned objects before their owners."""
        if self._pending_init is not None:
            return create()
        created: list[MuranoObject] = []
        params: dict[int, dict[str, t.Any]] = {}
        self._pending_init = created
        self._load_params = params
        was_loading = self.loading
        try:
            self.loading = True
            root = create()
            self.loading = was_loading
            for obj in created:
                unresolved = [n for n, v in obj.values.items() if _has_objref(v)]
                if unresolved:
                    frame = Frame(self, obj, None, obj.type, None, allow_writes=True)
                    for name in unresolved:
                        self.set_property(obj, name, params[id(obj)].get(name, NO_VALUE),
                                          frame, owner_check=False)
        finally:
            self.loading = was_loading
            self._pending_init = None
        for obj in created:
            if not obj.initialized and not obj.destroyed:
                self._run_init(obj, frame)
        return root

    _load_params: dict[int, dict[str, t.Any]] = {}

    def _create(self, cls: MuranoClass, owner: MuranoObject | None,
                properties: dict[str, t.Any], object_id: str | None, name: str | None,
                metadata: t.Any, frame: Frame | None) -> MuranoObject:
        obj = self.objects.get(object_id) if object_id else None
        if obj is not None:
            if properties:
                # keeps its values; objects only the model's values define are
                # still created (ObjectsCopy: see lifecycle.replay_model_values)
                self.lifecycle.replay_model_values(obj, properties)
            return obj
        obj = MuranoObject(cls, owner, object_id=object_id, name=name, metadata=metadata)
        obj.executor_ref = _weak(self)
        self.objects.put(obj)
        self._initialize_properties(obj, properties)
        if self._pending_init is not None:
            self._pending_init.append(obj)
            self._load_params[id(obj)] = properties
        return obj

    def _initialize_properties(self, obj: MuranoObject, params: dict[str, t.Any]) -> None:
        cls = obj.type
        frame = Frame(self, obj, None, cls, None, allow_writes=True)
        pending = [n for n in cls.property_names()]
        last_errors = len(pending) + 1
        while pending:
            failed = []
            for name in pending:
                spec = cls.find_property(name)
                assert spec is not None
                if spec.usage is PropertyUsage.Static:
                    continue
                if spec.usage is PropertyUsage.Config:
                    # never from the object model: the class config file's value
                    # or the Default (property_default)
                    value = NO_VALUE
                elif spec.usage is PropertyUsage.Runtime:
                    if not spec.has_default:
                        continue
                    value = NO_VALUE
                else:
                    value = params.get(name, NO_VALUE)
                try:
                    self.set_property(obj, name, value, frame, owner_check=False)
                except errors.UninitializedPropertyAccessError:
                    failed.append(name)
                except errors.ContractViolationException:
                    if spec.usage is not PropertyUsage.Runtime:
                        raise
                except errors.MuranoPlError as exc:
                    if exc.names and exc.names[0].endswith("UninitializedPropertyAccessError"):
                        failed.append(name)
                    else:
                        raise
            if len(failed) >= last_errors:
                raise errors.CircularExpressionDependenciesError(
                    "circular dependencies between property defaults of " + cls.name)
            last_errors = len(failed)
            pending = failed

    def _run_init(self, obj: MuranoObject, caller: Frame | None = None) -> None:
        """Run `.init` of each class, called from ``caller`` (the frame that
        called new()), so stack traces from `.init` show where it came from."""
        for cls in _init_order(obj.type):
            method = cls.methods.get(".init")
            if method is not None:
                self.invoke(method, obj, (), {}, caller)
        # only once every `.init` succeeded: an object whose `.init` failed is
        # dropped by the garbage collector without running `.destroy`
        obj.initialized = True

    def load_model(self, data: t.Any) -> MuranoObject | None:
        """Build the objects of an object model: `Objects` (the root),
        `ObjectsCopy` (objects of the previous deployment) and `Attributes`."""
        if not isinstance(data, dict):
            raise errors.DslError("an object model must be a mapping")
        if "Objects" not in data and "?" in data:
            data = {"Objects": data}
        for object_id, owner, name, value in data.get("Attributes") or []:
            if value is not None:
                self.attributes.setdefault(object_id, {})[(owner, name)] = value
        # the package versions the model was deployed with stay preferred
        self.classes.fix(data.get("Packages"))
        model = data.get("Objects")
        copy = data.get("ObjectsCopy")
        root = None
        if model is not None:
            root = self.run(lambda: self.load_object(model, None, None, None))
        if copy:
            self.run(lambda: self.load_object(copy, None, None, None))
        return root

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

    def serialize(self, root: MuranoObject | None) -> dict[str, t.Any]:
        from laguna.lang.serializer import serialize_model
        return serialize_model(root, self)

    # -- actions (laguna.lang.actions) ----------------------------------------------
    def run_action(self, model: t.Mapping[str, t.Any], action_id: str,
                   parameters: t.Mapping[str, t.Any] | None = None) -> t.Any:
        """Load ``model``, run its action ``<objectId>_<method>`` and return an
        :class:`~laguna.lang.actions.ActionResult` (result, new model, error)."""
        from laguna.lang.actions import run_action
        return run_action(self, model, action_id, parameters)

    def run_static_action(self, class_name: str, method_name: str,
                          parameters: t.Mapping[str, t.Any] | None = None, *,
                          package: str | None = None, version: str | None = None) -> t.Any:
        """Run a static action (`Scope: Public`, `Usage: Static`) of a class."""
        from laguna.lang.actions import run_static_action
        return run_static_action(self, class_name, method_name, parameters,
                                 package=package, version=version)

    # -- errors -----------------------------------------------------------------------
    def stack_frames(self, frame: Frame | None) -> list[errors.StackFrame]:
        frames = []
        while frame is not None:
            method = frame.method
            frames.append(errors.StackFrame(
                method.declaring_type.name if method is not None else frame.cls.name,
                method.name if method is not None else None, frame.span, frame.instruction))
            frame = frame.caller
        frames.reverse()
        return frames

    def to_murano_error(self, exc: BaseException, frame: Frame | None) -> errors.MuranoPlError:
        if isinstance(exc, errors.MuranoPlError):
            return exc
        if isinstance(exc, RecursionError):
            exc = errors.LimitExceededError("maximum recursion depth exceeded")
        if isinstance(exc, yaql_exceptions.CollectionTooLargeException):
            exc = errors.LimitExceededError(str(exc) or "collection size limit exceeded")
        if isinstance(exc, yaql_exceptions.MemoryQuotaExceededException):
            exc = errors.LimitExceededError("memory quota exceeded")
        error = errors.MuranoPlError(errors.murano_names(exc), str(exc),
                                     self.stack_frames(frame))
        error.original = exc
        return error

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

    def serialize_object(self, obj: MuranoObject) -> t.Any:
        from laguna.lang.serializer import serialize_object
        return freeze(serialize_object(obj, self))


_TYPE_NAME = re.compile(r"^([a-zA-Z_]\w*:|:)[a-zA-Z_]\w*(\.[a-zA-Z_]\w*)*$")


def _short_form(value: t.Any) -> tuple[t.Any, t.Any] | None:
    """`(type key, properties)` when ``value`` is `{ns:Type: {...}, ...}`: a key
    that is a type object or a prefixed type name (a colon tells it from a
    property name, as in the original engine)."""
    for key in value:
        if isinstance(key, (TypeRef, MuranoClass)) or (
                isinstance(key, str) and _TYPE_NAME.match(key)):
            return key, value[key]
    return None


def _has_objref(value: t.Any) -> bool:
    if isinstance(value, ObjRef):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_objref(v) for v in value)
    if isinstance(value, (dict, utils.FrozenDict)):
        return any(_has_objref(v) for v in value.values())
    return False


def _init_order(cls: MuranoClass) -> list[MuranoClass]:
    """Parents before children, each class once (post-order over Extends)."""
    order: list[MuranoClass] = []
    seen: set[int] = set()

    def visit(c: MuranoClass) -> None:
        if id(c) in seen:
            return
        seen.add(id(c))
        for parent in c.parents:
            visit(parent)
        order.append(c)
    visit(cls)
    return order


def _weak(executor: Executor) -> t.Callable[[], Executor]:
    import weakref
    return weakref.ref(executor)


__all__ = ["Executor", "ObjRef", "thaw"]
