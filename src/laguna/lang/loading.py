"""Objects from their descriptions: `new()`, object models, `.init`.

Loading a graph takes two passes, like the original engine: every object is
created first (a reference to an id not seen yet stays an :class:`ObjRef`),
then the properties that held such references are set again; `.init` of each
new object runs last, owned objects before their owners. The loader belongs
to one executor and runs `.init` through its call path; it never imports
the executor.

Ids: loading a model as a deployment (or `TestFixture.load`) keeps the ids
of its `?` headers. `new(model)` gives every object of the model a fresh id;
the model's ids then only resolve references inside that model (an
:class:`_IdScope` for the graph), other ids still name existing objects.
"""

from __future__ import annotations

import re
import threading
import typing as t
import weakref

from yaql.language import utils

from laguna.lang import errors, properties
from laguna.lang.contracts import ObjRef
from laguna.lang.dispatch import thaw
from laguna.lang.objects import MuranoObject
from laguna.lang.scope import NO_VALUE, Frame
from laguna.lang.types import MuranoClass, PropertyUsage, TypeRef

if t.TYPE_CHECKING:
    from laguna.lang.executor import Executor


class _GraphState(threading.local):
    """The graph a thread is loading. Per thread: pselect runs MuranoPL code
    in threads, and a `new()` in one must not join a graph another thread is
    loading (its object would come back before its `.init` ran)."""

    def __init__(self) -> None:
        self.loading = False
        self.pending_init: list[MuranoObject] | None = None
        self.load_params: dict[int, dict[str, t.Any]] = {}
        self.id_scope: _IdScope | None = None


class ObjectLoader:
    """Creates the objects of one executor."""

    def __init__(self, executor: Executor) -> None:
        self._executor = weakref.ref(executor)
        self._graph = _GraphState()

    @property
    def loading(self) -> bool:
        """True while this thread creates a graph's objects (contracts let ObjRefs pass)."""
        return self._graph.loading

    @loading.setter
    def loading(self, value: bool) -> None:
        self._graph.loading = value

    @property
    def _pending_init(self) -> list[MuranoObject] | None:
        return self._graph.pending_init

    @_pending_init.setter
    def _pending_init(self, value: list[MuranoObject] | None) -> None:
        self._graph.pending_init = value

    @property
    def _load_params(self) -> dict[int, dict[str, t.Any]]:
        return self._graph.load_params

    @_load_params.setter
    def _load_params(self, value: dict[int, dict[str, t.Any]]) -> None:
        self._graph.load_params = value

    @property
    def _id_scope(self) -> _IdScope | None:
        return self._graph.id_scope

    @_id_scope.setter
    def _id_scope(self, value: _IdScope | None) -> None:
        self._graph.id_scope = value

    @property
    def executor(self) -> Executor:
        executor = self._executor()
        assert executor is not None
        return executor

    def template_type(self, value: t.Any, default: MuranoClass,
                      scope_type: MuranoClass) -> MuranoClass:
        header = value.get("?") if isinstance(value, (dict, utils.FrozenDict)) else None
        if header and header.get("type"):
            return self.executor.classes.find_for_model(str(header["type"]), header, scope_type)
        return default

    def new_object(self, cls: MuranoClass, owner: MuranoObject | None,
                   properties: dict[str, t.Any], *, object_id: str | None = None,
                   name: str | None = None, frame: Frame | None = None) -> MuranoObject:
        """Create and initialise an object (what `new()` does)."""
        return self._load_graph(lambda: self._create(cls, owner, properties, object_id,
                                                     name, None, frame), frame)

    def find(self, object_id: str) -> MuranoObject | None:
        """The object an id in a model names: while `new(model)` loads, an id
        the model declares names the object made of it (None until then),
        any other id an object of the executor."""
        scope = self._id_scope
        if scope is not None and object_id in scope.model_ids:
            return scope.objects.get(object_id)
        return self.executor.objects.get(object_id)

    def load_object(self, value: t.Any, owner: MuranoObject | None,
                    default_type: MuranoClass | None,
                    scope_type: MuranoClass | None = None, *,
                    fresh_ids: bool = False) -> MuranoObject:
        """An object from its model representation: a dict with a "?" header, or
        the short form `{ns:Type: {properties}, id: ..., name: ...}`. With
        ``fresh_ids`` (`new(model)`) the objects get new ids; objects a
        `new(model)` loads through contracts inherit that."""
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
                    cls = self.executor.classes.find_for_model(
                        str(type_name), header, scope_type or default_type)
            object_id = header.get("id")
            name = header.get("name")
            metadata = header.get("metadata")
        designer = ({str(k): thaw(v) for k, v in header.items() if str(k).startswith("_")}
                    if header else None)
        if cls is None:
            raise errors.DslError("Invalid object representation: no type information "
                                  "was provided")

        def create() -> MuranoObject:
            if self._id_scope is not None:
                obj = self._create(cls, owner, properties, None, name, metadata, None,
                                   model_id=object_id)
            else:
                known = object_id is not None and object_id in self.executor.objects
                obj = self._create(cls, owner, properties, object_id, name, metadata, None)
                if header and not known:
                    # `destroyed` and `dependencies` of the header (before `.init` runs)
                    self.executor.lifecycle.restore(obj, header)
            if designer and object_id is not None:
                # `Objects` is loaded before `ObjectsCopy`: its UI data wins
                self.executor.designer_attributes.setdefault(obj.id, designer)
            return obj
        scope = _IdScope(_model_ids(value)) if fresh_ids else None
        if self._pending_init is None:
            return self._load_graph(create, id_scope=scope)
        if scope is None or self._id_scope is not None:
            return create()
        # new(model) while another graph loads (a property default): the
        # model's own ids resolve while its objects are created
        outer, self._id_scope = self._id_scope, scope
        try:
            return create()
        finally:
            self._id_scope = outer

    def _load_graph(self, create: t.Callable[[], MuranoObject],
                    frame: Frame | None = None, id_scope: _IdScope | None = None
                    ) -> MuranoObject:
        """Load an object graph like the original engine: create every object
        first (a reference to an id not seen yet stays an ObjRef), then set
        the properties that held such references again, then run `.init` of
        each new object, owned objects before their owners."""
        graph = self._graph   # (this thread's: read once, not through the properties)
        if graph.pending_init is not None:
            return create()
        created: list[MuranoObject] = []
        params: dict[int, dict[str, t.Any]] = {}
        graph.pending_init = created
        graph.load_params = params
        was_loading = graph.loading
        graph.id_scope = id_scope
        try:
            graph.loading = True
            refs_made = ObjRef.made
            root = create()
            graph.loading = was_loading
            for obj in created if ObjRef.made != refs_made else ():
                unresolved = [n for n, v in obj.values.items() if _has_objref(v)]
                if unresolved:
                    frame = Frame(self.executor, obj, None, obj.type, None, allow_writes=True)
                    for name in unresolved:
                        self.executor.set_property(
                            obj, name, params[id(obj)].get(name, NO_VALUE), frame,
                            owner_check=False)
        finally:
            graph.loading = was_loading
            graph.pending_init = None
            graph.id_scope = None
        for obj in created:
            if not obj.initialized and not obj.destroyed:
                self._run_init(obj, frame)
        return root

    def _create(self, cls: MuranoClass, owner: MuranoObject | None,
                properties: dict[str, t.Any], object_id: str | None, name: str | None,
                metadata: t.Any, frame: Frame | None, *,
                model_id: str | None = None) -> MuranoObject:
        executor = self.executor
        obj = executor.objects.get(object_id) if object_id else None
        if obj is not None:
            if properties:
                # keeps its values; objects only the model's values define are
                # still created (ObjectsCopy: see lifecycle.replay_model_values)
                executor.lifecycle.replay_model_values(obj, properties)
            return obj
        obj = MuranoObject(cls, owner, object_id=object_id, name=name, metadata=metadata)
        obj.executor_ref = _weak(executor)
        executor.objects.put(obj)
        graph = self._graph
        if model_id is not None and graph.id_scope is not None:
            # before its properties: objects it owns may refer back to it
            graph.id_scope.objects[str(model_id)] = obj
        self._initialize_properties(obj, properties)
        if graph.pending_init is not None:
            graph.pending_init.append(obj)
            graph.load_params[id(obj)] = properties
        return obj

    def _initialize_properties(self, obj: MuranoObject, params: dict[str, t.Any]) -> None:
        cls = obj.type
        executor = self.executor
        frame = Frame(executor, obj, None, cls, None, allow_writes=True)
        pending = cls.property_names()   # (a copy)
        # a new object is its own root, of class cls: set_property would find
        # each property's declarations again and grant the write (allow_writes)
        declarations = cls.property_declarations() if obj.real_this is obj else None
        last_errors = len(pending) + 1
        while pending:
            failed = []
            for name in pending:
                if declarations is not None:
                    spec, specs = declarations[name]
                else:
                    found = cls.find_property(name)
                    assert found is not None
                    spec = found
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
                    if declarations is not None:
                        properties.write_declared(executor, obj, name, value, frame,
                                                  spec, specs)
                    else:
                        executor.set_property(obj, name, value, frame, owner_check=False)
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
        for cls in obj.type.init_order():
            method = cls.methods.get(".init")
            if method is not None:
                self.executor.invoke(method, obj, (), {}, caller)
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
                self.executor.attributes.setdefault(object_id, {})[(owner, name)] = value
        # the package versions the model was deployed with stay preferred
        self.executor.classes.fix(data.get("Packages"))
        model = data.get("Objects")
        copy = data.get("ObjectsCopy")
        root = None
        if model is not None:
            root = self.executor.run(lambda: self.load_object(model, None, None, None))
        if copy:
            self.executor.run(lambda: self.load_object(copy, None, None, None))
        return root


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


class _IdScope:
    """The ids a model given to `new()` declares and the objects made of them."""

    def __init__(self, model_ids: set[str]) -> None:
        self.model_ids = model_ids
        self.objects: dict[str, MuranoObject] = {}


def _model_ids(value: t.Any) -> set[str]:
    """The ids the object headers of a model declare (`?: {id: ...}` or the
    short form's `id`), at any depth."""
    found: set[str] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, (dict, utils.FrozenDict)):
            header = item.get("?")
            if isinstance(header, (dict, utils.FrozenDict)):
                if header.get("id") is not None:
                    found.add(str(header["id"]))
            elif _short_form(item) is not None and item.get("id") is not None:
                found.add(str(item["id"]))
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return found


def _has_objref(value: t.Any) -> bool:
    if isinstance(value, ObjRef):
        return True
    if isinstance(value, (tuple, list)):
        return any(_has_objref(v) for v in value)
    if isinstance(value, (dict, utils.FrozenDict)):
        return any(_has_objref(v) for v in value.values())
    return False


def _weak(executor: Executor) -> t.Callable[[], Executor | None]:
    return weakref.ref(executor)


__all__ = ["ObjectLoader"]
