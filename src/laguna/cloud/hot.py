"""HOT templates: the model, validation, intrinsic functions, ordering and diffs.

A template is parsed once (:func:`parse`): sections, parameters, resources and
outputs are checked, and every ``get_resource``/``get_attr``/``depends_on``
must name a resource of the template, every ``get_param`` a parameter. Errors
carry the stack name and a path such as
``resources.web.properties.networks[0].port``.

Values are computed by :func:`evaluate` against a :class:`Resolver`, which a
cloud driver implements to give resource ids and attributes. Supported
functions: ``get_param``, ``get_resource``, ``get_attr`` (with a path into the
attribute), ``str_replace``, ``list_join``, ``str_split``, ``map_merge``,
``repeat`` and ``get_file``. Other one-key maps (``get_input`` inside software
configs) are data and pass through unchanged, as Heat leaves them to the
deployment that reads them.
"""

from __future__ import annotations

import dataclasses
import datetime
import graphlib
import itertools
import json
import typing as t

from laguna.cloud import errors
from laguna.cloud.errors import TemplateError

SECTIONS = frozenset({"heat_template_version", "description", "parameter_groups",
                      "parameters", "resources", "outputs", "conditions"})
RESOURCE_KEYS = frozenset({"type", "properties", "depends_on", "metadata",
                           "deletion_policy", "update_policy", "condition",
                           "external_id"})
PARAMETER_KEYS = frozenset({"type", "default", "description", "label", "hidden",
                            "constraints", "immutable", "tags"})
PARAMETER_TYPES = frozenset({"string", "number", "json", "comma_delimited_list",
                             "boolean"})
FUNCTIONS = frozenset({"get_param", "get_resource", "get_attr", "str_replace",
                       "list_join", "str_split", "map_merge", "repeat", "get_file"})
DEFAULT_VERSION = "2013-05-23"


@dataclasses.dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    type: str
    default: t.Any = None
    has_default: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Resource:
    name: str
    type: str
    properties: t.Mapping[str, t.Any]
    metadata: t.Mapping[str, t.Any]
    depends_on: tuple[str, ...]
    definition: t.Mapping[str, t.Any]


@dataclasses.dataclass(frozen=True, slots=True)
class Output:
    name: str
    value: t.Any
    description: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Diff:
    """What an update changes: resource names, each list in template order."""

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Template:
    """A parsed, validated HOT template."""

    stack: str
    version: str
    parameters: t.Mapping[str, Parameter]
    resources: t.Mapping[str, Resource]
    outputs: t.Mapping[str, Output]
    raw: t.Mapping[str, t.Any]

    #: resource name -> what it depends on, found once by :func:`parse`
    references: t.Mapping[str, frozenset[str]] = dataclasses.field(
        default_factory=dict, compare=False, repr=False)
    #: output name -> the resources its value refers to
    output_references: t.Mapping[str, frozenset[str]] = dataclasses.field(
        default_factory=dict, compare=False, repr=False)
    #: names of the resources whose properties, and of the outputs whose values,
    #: call get_attr: what they compute may change when other resources do
    attribute_users: frozenset[str] = dataclasses.field(
        default=frozenset(), compare=False, repr=False)
    attribute_outputs: frozenset[str] = dataclasses.field(
        default=frozenset(), compare=False, repr=False)
    _order: list[str] | None = dataclasses.field(default=None, compare=False, repr=False)

    def dependencies(self, name: str) -> set[str]:
        """The resources ``name`` refers to or explicitly depends on."""
        known = self.references.get(name)
        if known is not None:
            return set(known)
        resource = self.resources[name]
        found = set(resource.depends_on)
        for part in (resource.properties, resource.metadata):
            for call, arg, _ in _calls(part, None):
                target = _target(call, arg)
                if target is not None:
                    found.add(target)
        return found

    def order(self) -> list[str]:
        """Resource names, each after what it depends on; ties in template order."""
        if self._order is None:
            # a frozen dataclass: computed once (parse checks it for cycles)
            object.__setattr__(self, "_order", self._sorted())
        return list(t.cast(list[str], self._order))

    def _sorted(self) -> list[str]:
        """graphlib's order taken a round at a time (every resource ready, in
        template order): a resource's round is one after the last of what it
        depends on, so the order is by round, then template position. Found
        by one walk (graphlib's own costs several times more, on every push)."""
        position = {name: i for i, name in enumerate(self.resources)}
        rounds: dict[str, int] = {}
        for start in self.resources:
            if start in rounds:
                continue
            path = [start]
            waiting = {start}
            while path:
                name = path[-1]
                deps = self.references.get(name)
                if deps is None:
                    deps = frozenset(self.dependencies(name))
                pending = [d for d in deps if d not in rounds]
                if not pending:
                    rounds[name] = 1 + max((rounds[d] for d in deps), default=-1)
                    waiting.discard(name)
                    path.pop()
                    continue
                dep = pending[0]
                if dep in waiting or dep not in position:
                    # a cycle (graphlib's error names it), or a name parse never let by
                    return self._sorted_by_graphlib(position)
                waiting.add(dep)
                path.append(dep)
        return sorted(self.resources, key=lambda n: (rounds[n], position[n]))

    def _sorted_by_graphlib(self, position: dict[str, int]) -> list[str]:
        sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
        for name in self.resources:
            sorter.add(name, *self.dependencies(name))
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            cycle = " -> ".join(exc.args[1])
            raise TemplateError(f"dependency cycle: {cycle}", stack=self.stack,
                                path="resources", code=errors.CYCLE) from None
        result: list[str] = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready(), key=position.__getitem__)
            result.extend(ready)
            sorter.done(*ready)
        return result


class Location:
    """Where a value sits in a template (``resources.web.properties.networks[0]``).

    Walks make one per node they visit; the text is put together only when
    an error names it (formatting every path of every push was most of the
    walks' time)."""

    __slots__ = ("parent", "key")

    def __init__(self, parent: Location | None, key: str | int) -> None:
        self.parent = parent
        self.key = key          # a list index is an int, a mapping key a str

    def __str__(self) -> str:
        keys: list[str | int] = []
        node: Location | None = self
        while node is not None:
            keys.append(node.key)
            node = node.parent
        text = ""
        for key in reversed(keys):
            if isinstance(key, int):
                text += f"[{key}]"
            else:
                text = f"{text}.{key}" if text else key
        return text


def _key(parent: Location | None, key: t.Any) -> Location:
    return Location(parent, key if type(key) is str else str(key))


def _target(call: str, arg: t.Any) -> str | None:
    if call == "get_resource" and isinstance(arg, str):
        return arg
    if call == "get_attr" and isinstance(arg, list) and arg and isinstance(arg[0], str):
        return arg[0]
    return None


def _calls(value: t.Any, path: Location | None
           ) -> t.Iterator[tuple[str, t.Any, Location | None]]:
    """Every intrinsic function call inside ``value``: (name, argument, where)."""
    if isinstance(value, dict):
        if len(value) == 1:
            (key, arg), = value.items()
            if key in FUNCTIONS:
                yield key, arg, path
                if isinstance(arg, (dict, list)):
                    yield from _calls(arg, Location(path, key))
                return
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                yield from _calls(item, _key(path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from _calls(item, Location(path, i))


def _collect_calls(value: t.Any, out: list[tuple[str, t.Any]]) -> None:
    """The (name, argument) of every call inside ``value``, in :func:`_calls`'s order."""
    if isinstance(value, dict):
        if len(value) == 1:
            (key, arg), = value.items()
            if key in FUNCTIONS:
                out.append((key, arg))
                if isinstance(arg, (dict, list)):
                    _collect_calls(arg, out)
                return
        for item in value.values():
            if isinstance(item, (dict, list)):
                _collect_calls(item, out)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)):
                _collect_calls(item, out)


def parse(data: t.Any, stack: str, known_types: t.Container[str] | None = None,
          previous: Template | None = None) -> Template:
    """Check a template document and build its model.

    ``known_types``, when given, is the set of resource types the driver can
    realise; any other type fails with the resource's name and path.

    ``previous``, the model of an earlier template of the same driver, saves
    checking again a resource or output whose definition is the very same
    object (not an equal one) as there: a stack growing by one server a push
    is checked in time proportional to what changed, not to its size.
    """
    def fail(path: str, message: str, code: str | None = None,
             resource: str | None = None) -> t.NoReturn:
        raise TemplateError(message, stack=stack, path=path, code=code,
                            resource=resource)

    if not isinstance(data, dict):
        fail("", "a template must be a mapping")
    for key in data:
        if key not in SECTIONS:
            fail(str(key), f"unknown section {key!r}")
    version = data.get("heat_template_version", DEFAULT_VERSION)
    if isinstance(version, datetime.date):
        version = version.isoformat()
    if not isinstance(version, str):
        fail("heat_template_version", "must be a date or a release name")

    parameters: dict[str, Parameter] = {}
    for name, spec in _section(data, "parameters", fail).items():
        path = f"parameters.{name}"
        if not isinstance(spec, dict):
            fail(path, "a parameter must be a mapping")
        for key in spec:
            if key not in PARAMETER_KEYS:
                fail(f"{path}.{key}", f"unknown parameter key {key!r}")
        ptype = spec.get("type")
        if ptype not in PARAMETER_TYPES:
            fail(f"{path}.type", f"type must be one of {', '.join(sorted(PARAMETER_TYPES))}",
                 errors.PARAMETER)
        parameters[name] = Parameter(name, ptype, spec.get("default"), "default" in spec)

    # what ``previous`` checked holds as long as the parameters are the same
    if previous is not None and data.get("parameters") != previous.raw.get("parameters"):
        previous = None
    known = previous.resources if previous is not None else {}
    resources: dict[str, Resource] = {}
    for name, spec in _section(data, "resources", fail).items():
        old = known.get(name)
        if old is not None and old.definition is spec:
            resources[name] = old
            continue
        path = f"resources.{name}"
        if not isinstance(spec, dict):
            fail(path, "a resource must be a mapping", resource=name)
        for key in spec:
            if key not in RESOURCE_KEYS:
                fail(f"{path}.{key}", f"unknown resource key {key!r}", resource=name)
        rtype = spec.get("type")
        if not isinstance(rtype, str) or not rtype:
            fail(f"{path}.type", "a resource needs a type", resource=name)
        if known_types is not None and rtype not in known_types:
            fail(f"{path}.type", f"unknown resource type {rtype!r}",
                 errors.UNKNOWN_TYPE, name)
        properties = spec.get("properties") or {}
        metadata = spec.get("metadata") or {}
        if not isinstance(properties, dict):
            fail(f"{path}.properties", "properties must be a mapping", resource=name)
        depends = spec.get("depends_on") or []
        if isinstance(depends, str):
            depends = [depends]
        if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
            fail(f"{path}.depends_on", "must be a resource name or a list of them",
                 resource=name)
        resources[name] = Resource(name, rtype, properties, metadata,
                                   tuple(depends), spec)

    outputs: dict[str, Output] = {}
    specs: dict[str, t.Any] = {}
    known_specs = (previous.raw.get("outputs") or {}) if previous is not None else {}
    for name, spec in _section(data, "outputs", fail).items():
        specs[name] = spec
        if known_specs.get(name) is spec and previous is not None:
            outputs[name] = previous.outputs[name]
            continue
        if not isinstance(spec, dict) or "value" not in spec:
            fail(f"outputs.{name}", "an output must be a mapping with a value")
        outputs[name] = Output(name, spec["value"], spec.get("description"))

    def wrong(call: str, arg: t.Any) -> bool:
        """True if ``check`` fails this call."""
        if call in ("get_resource", "get_attr"):
            target = _target(call, arg)
            return target is None or target not in resources or (
                call == "get_attr" and len(arg) < 2)
        if call == "get_param":
            pname = arg[0] if isinstance(arg, list) and arg else arg
            return not isinstance(pname, str) or (
                pname not in parameters and not pname.startswith("OS::"))
        return False

    def check(value: t.Any, base: Location, resource: str | None,
              found: set[str]) -> bool:
        """Check the calls inside ``value``; add the resources they name to
        ``found``; True if one of them is a get_attr.

        One quick walk without paths; only a call that fails sends it through
        :func:`explain`, which walks again with the paths an error names."""
        calls: list[tuple[str, t.Any]] = []
        _collect_calls(value, calls)
        attributes = False
        for call, arg in calls:
            if wrong(call, arg):
                explain(value, base, resource)
            if call == "get_resource":
                found.add(arg)
            elif call == "get_attr":
                found.add(arg[0])
                attributes = True
        return attributes

    def explain(value: t.Any, base: Location, resource: str | None) -> None:
        """Fail at the first call ``check`` refuses, naming where it is."""
        for call, arg, at in _calls(value, base):
            if call in ("get_resource", "get_attr"):
                target = _target(call, arg)
                if target is None:
                    fail(f"{at}.{call}", f"{call} needs a resource name",
                         errors.BAD_FUNCTION, resource)
                if target not in resources:
                    fail(str(at), f"reference to missing resource {target!r}",
                         errors.MISSING_RESOURCE, resource)
                if call == "get_attr" and len(arg) < 2:
                    fail(f"{at}.{call}", "get_attr needs a resource name and an attribute",
                         errors.BAD_FUNCTION, resource)
            elif call == "get_param":
                pname = arg[0] if isinstance(arg, list) and arg else arg
                if not isinstance(pname, str):
                    fail(f"{at}.{call}", "get_param needs a parameter name",
                         errors.BAD_FUNCTION, resource)
                if pname not in parameters and not pname.startswith("OS::"):
                    fail(str(at), f"reference to missing parameter {pname!r}",
                         errors.PARAMETER, resource)

    def reused(name: str, entry: t.Any, before: t.Mapping[str, t.Any],
               before_refs: t.Mapping[str, frozenset[str]], before_users: frozenset[str],
               refs: dict[str, frozenset[str]], users: set[str]) -> bool:
        """True if ``entry`` is ``previous``'s own, checked then, and what it
        names is still there: its references and get_attr use carry over."""
        if before.get(name) is not entry or not all(r in resources
                                                     for r in before_refs[name]):
            return False
        refs[name] = before_refs[name]
        if name in before_users:
            users.add(name)
        return True

    references: dict[str, frozenset[str]] = {}
    attribute_users: set[str] = set()
    for name, res in resources.items():
        if previous is not None and reused(name, res, previous.resources, previous.references,
                                           previous.attribute_users, references,
                                           attribute_users):
            continue
        found = set(res.depends_on)
        where = Location(Location(None, "resources"), name)
        if check(res.properties, Location(where, "properties"), name, found):
            attribute_users.add(name)
        check(res.metadata, Location(where, "metadata"), name, found)
        for i, dep in enumerate(res.depends_on):
            if dep not in resources:
                fail(f"resources.{name}.depends_on[{i}]",
                     f"reference to missing resource {dep!r}", errors.MISSING_RESOURCE, name)
        references[name] = frozenset(found)
    output_references: dict[str, frozenset[str]] = {}
    attribute_outputs: set[str] = set()
    for name, out in outputs.items():
        if previous is not None and reused(name, out, previous.outputs,
                                           previous.output_references,
                                           previous.attribute_outputs, output_references,
                                           attribute_outputs):
            continue
        found = set()
        if check(out.value, Location(Location(Location(None, "outputs"), name), "value"),
                 None, found):
            attribute_outputs.add(name)
        output_references[name] = frozenset(found)

    template = Template(stack, version, parameters, resources, outputs, data, references,
                        output_references, frozenset(attribute_users),
                        frozenset(attribute_outputs))
    template.order()   # a cycle fails at parse time
    return template


def _section(data: t.Mapping[str, t.Any], name: str,
             fail: t.Callable[[str, str], t.NoReturn]) -> dict[str, t.Any]:
    section = data.get(name) or {}
    if not isinstance(section, dict):
        fail(name, f"{name} must be a mapping")
    for key in section:
        if not isinstance(key, str):
            fail(f"{name}.{key}", "names must be strings")
    return section


def resolve_parameters(template: Template,
                       given: t.Mapping[str, t.Any]) -> dict[str, t.Any]:
    """Parameter values: those given, else defaults, converted to their types."""
    values: dict[str, t.Any] = {}
    for name in given:
        if name not in template.parameters:
            raise TemplateError(f"no parameter {name!r} in the template",
                                stack=template.stack, path=f"parameters.{name}",
                                code=errors.PARAMETER)
    for name, param in template.parameters.items():
        path = f"parameters.{name}"
        if name in given:
            value = given[name]
        elif param.has_default:
            value = param.default
        else:
            raise TemplateError("no value given and no default", stack=template.stack,
                                path=path, code=errors.PARAMETER)
        try:
            values[name] = _convert(param.type, value)
        except (ValueError, TypeError) as exc:
            raise TemplateError(f"{value!r} is not a valid {param.type}: {exc}",
                                stack=template.stack, path=path,
                                code=errors.PARAMETER) from None
    return values


def _convert(ptype: str, value: t.Any) -> t.Any:
    if value is None:
        return None
    if ptype == "string":
        if isinstance(value, (dict, list)):
            raise TypeError("a string parameter cannot take a collection")
        return value if isinstance(value, str) else json.dumps(value)
    if ptype == "number":
        if isinstance(value, bool):
            raise TypeError("a boolean is not a number")
        if isinstance(value, (int, float)):
            return value
        text = str(value)
        return float(text) if any(c in text for c in ".eE") else int(text)
    if ptype == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).lower()
        if text in ("true", "t", "on", "y", "yes", "1"):
            return True
        if text in ("false", "f", "off", "n", "no", "0"):
            return False
        raise ValueError("not a boolean word")
    if ptype == "comma_delimited_list":
        if isinstance(value, list):
            return [str(v) for v in value]
        return [part.strip() for part in str(value).split(",")] if value != "" else []
    return json.loads(value) if isinstance(value, str) else value   # json


class Resolver(t.Protocol):
    """What a driver provides to compute template values."""

    def resource_id(self, name: str) -> str: ...

    def attribute(self, name: str, attribute: str) -> t.Any: ...


@dataclasses.dataclass(slots=True)
class Evaluator:
    """Computes intrinsic functions of one template against one resolver."""

    template: Template
    parameters: t.Mapping[str, t.Any]
    resolver: Resolver
    files: t.Mapping[str, str] = dataclasses.field(default_factory=dict)

    def fail(self, path: str | Location, message: str) -> t.NoReturn:
        raise TemplateError(message, stack=self.template.stack, path=str(path),
                            code=errors.BAD_FUNCTION)

    def evaluate(self, value: t.Any, path: str | Location) -> t.Any:
        """``value`` with its function calls computed; ``path`` is where it sits."""
        if isinstance(value, dict):
            at = path if isinstance(path, Location) else Location(None, path)
            if len(value) == 1:
                (key, arg), = value.items()
                if key in FUNCTIONS:
                    method = getattr(self, f"_fn_{key}")
                    return method(arg, Location(at, key))
            return {k: self.evaluate(v, _key(at, k)) if isinstance(v, (dict, list)) else v
                    for k, v in value.items()}
        if isinstance(value, list):
            at = path if isinstance(path, Location) else Location(None, path)
            return [self.evaluate(v, Location(at, i)) if isinstance(v, (dict, list)) else v
                    for i, v in enumerate(value)]
        return value

    def _fn_get_param(self, arg: t.Any, path: Location) -> t.Any:
        keys = list(arg) if isinstance(arg, list) else [arg]
        keys = [self.evaluate(k, path) for k in keys]
        name = keys[0]
        if name == "OS::stack_name":
            return self.template.stack
        if name not in self.parameters:
            self.fail(path, f"reference to missing parameter {name!r}")
        return _index(self.parameters[name], keys[1:])

    def _fn_get_resource(self, arg: t.Any, path: Location) -> t.Any:
        return self.resolver.resource_id(self.evaluate(arg, path))

    def _fn_get_attr(self, arg: t.Any, path: Location) -> t.Any:
        args = [self.evaluate(a, path) for a in arg]
        return _index(self.resolver.attribute(args[0], args[1]), args[2:])

    def _fn_str_replace(self, arg: t.Any, path: Location) -> t.Any:
        arg = self.evaluate(arg, path)
        if not isinstance(arg, dict) or not isinstance(arg.get("template"), str) \
                or not isinstance(arg.get("params"), dict):
            self.fail(path, "str_replace needs a template string and a params mapping")
        text: str = arg["template"]
        # Longest keys first, as Heat does, so that "$var1" is not eaten by "$var".
        for key in sorted(arg["params"], key=lambda k: -len(str(k))):
            text = text.replace(str(key), _text(arg["params"][key]))
        return text

    def _fn_list_join(self, arg: t.Any, path: Location) -> t.Any:
        arg = self.evaluate(arg, path)
        if not isinstance(arg, list) or len(arg) < 2 or not isinstance(arg[0], str) \
                or not all(isinstance(a, list) for a in arg[1:]):
            self.fail(path, "list_join needs a delimiter and one or more lists")
        return arg[0].join(_text(item) for items in arg[1:] for item in items)

    def _fn_str_split(self, arg: t.Any, path: Location) -> t.Any:
        arg = self.evaluate(arg, path)
        if not isinstance(arg, list) or len(arg) not in (2, 3) \
                or not isinstance(arg[0], str) or not isinstance(arg[1], str):
            self.fail(path, "str_split needs a delimiter, a string and maybe an index")
        parts = arg[1].split(arg[0])
        if len(arg) == 3:
            if not isinstance(arg[2], int) or not -len(parts) <= arg[2] < len(parts):
                self.fail(path, f"index {arg[2]!r} out of range")
            return parts[arg[2]]
        return parts

    def _fn_map_merge(self, arg: t.Any, path: Location) -> t.Any:
        arg = self.evaluate(arg, path)
        if not isinstance(arg, list) or not all(isinstance(m, dict) for m in arg):
            self.fail(path, "map_merge needs a list of mappings")
        merged: dict[str, t.Any] = {}
        for mapping in arg:
            merged.update(mapping)
        return merged

    def _fn_repeat(self, arg: t.Any, path: Location) -> t.Any:
        if not isinstance(arg, dict) or set(arg) != {"for_each", "template"}:
            self.fail(path, "repeat needs for_each and template")
        loops = self.evaluate(arg["for_each"], Location(path, "for_each"))
        if not isinstance(loops, dict) or not all(isinstance(v, list) for v in loops.values()):
            self.fail(path, "repeat: for_each must map placeholders to lists")
        keys = list(loops)
        body = self.evaluate(arg["template"], Location(path, "template"))
        return [_substitute(body, dict(zip(keys, combo)))
                for combo in itertools.product(*(loops[k] for k in keys))]

    def _fn_get_file(self, arg: t.Any, path: Location) -> t.Any:
        name = self.evaluate(arg, path)
        if name not in self.files:
            self.fail(path, f"no file {name!r} was given with the template")
        return self.files[name]


def _text(value: t.Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list, bool)) or value is None:
        return json.dumps(value)
    return str(value)


def _substitute(value: t.Any, values: t.Mapping[str, t.Any]) -> t.Any:
    if isinstance(value, str):
        for key in sorted(values, key=lambda k: -len(k)):
            if value == key:
                return values[key]
            value = value.replace(key, _text(values[key]))
        return value
    if isinstance(value, dict):
        return {_substitute(k, values): _substitute(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, values) for v in value]
    return value


def _index(value: t.Any, keys: t.Sequence[t.Any]) -> t.Any:
    """Follow a get_attr/get_param path; a missing key gives None, as in Heat."""
    for key in keys:
        if isinstance(value, dict):
            value = value.get(key if isinstance(key, str) else str(key))
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def diff(old: Template | None, new: Template) -> Diff:
    """Resources an update adds, removes and changes (by definition)."""
    before = old.resources if old is not None else {}
    return Diff(
        added=tuple(n for n in new.resources if n not in before),
        removed=tuple(n for n in before if n not in new.resources),
        changed=tuple(n for n, r in new.resources.items()
                      if n in before and before[n].definition != r.definition))
