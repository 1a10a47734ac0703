"""From class definitions (loaded YAML) to :class:`MuranoClass` objects.

The host hands the engine class sources; this module checks each key of a
class document and builds the class, its properties and methods. Every
problem raises :class:`ClassLoadError` with the file and line of the key.
"""

from __future__ import annotations

import enum
import functools
import typing as t

from yaql.language import exceptions as yaql_exceptions

from laguna.lang import macros, meta
from laguna.lang.contracts import Contract
from laguna.lang.errors import (
    ClassLoadError, InvalidClassReference, InvalidTypeName, MissingClassReference, NoClassFound,
)
from laguna.lang.functions import FunctionTable
from laguna.lang.types import (
    OBJECT_CLASS, Argument, ArgumentUsage, Method, MethodScope, MethodUsage, MuranoClass,
    NamespaceResolver, Property, PropertyUsage, RuntimePackage,
)
from laguna.source import Span
from laguna.yamlio import YamlError, load_all, plain, span_of
from laguna.yaql.expressions import YaqlExpression, is_expression

CLASS_KEYS = frozenset({"Name", "Namespaces", "Extends", "Properties", "Methods", "Import",
                        "Usage", "Meta", "Cardinality", "Applies", "Inherited", "Workflow"})
PROPERTY_KEYS = frozenset({"Contract", "Usage", "Default", "Meta"})
METHOD_KEYS = frozenset({"Body", "Arguments", "Usage", "Scope", "Meta"})
ARGUMENT_KEYS = frozenset({"Contract", "Usage", "Default", "Meta"})
META_TARGETS = frozenset({"Package", "Type", "Method", "Property", "Argument", "All"})


def expression_hook(legacy: bool) -> t.Callable[[str, Span, bool], t.Any]:
    def hook(text: str, span: Span, forced: bool) -> t.Any:
        if forced or is_expression(text, legacy):
            try:
                return YaqlExpression(text, span, legacy)
            except yaql_exceptions.YaqlException as exc:
                # only `!yaql` scalars get here: plain ones that do not parse are strings
                position = getattr(exc, "position", None)
                where = span.shifted(position) if isinstance(position, int) else span
                problem = getattr(exc, "message", None) or str(exc)
                raise ClassLoadError(f"invalid YAQL expression {text!r}: {problem}", where,
                                     code="LAG-E0223") from exc
        return None
    return hook


def parse_class_file(text: str, source: str, legacy: bool) -> list[dict[str, t.Any]]:
    """The class documents of one file, each with its Namespaces filled in."""
    documents = load_all(text, source, expression_hook(legacy))
    result = []
    namespaces: dict[str, t.Any] = {}
    for doc in documents:
        if not isinstance(doc, dict):
            raise ClassLoadError("a class definition must be a mapping",
                                 span_of(doc) or Span(source, 1, 1), code="LAG-E0201")
        if "Namespaces" in doc:
            namespaces = doc["Namespaces"] or {}
        else:
            doc["Namespaces"] = dict(namespaces)
        if set(doc) == {"Namespaces"}:
            continue
        result.append(doc)
    return result


@functools.lru_cache(maxsize=1024)
def shared_class_file(text: str, source: str, legacy: bool) -> list[dict[str, t.Any]]:
    """:func:`parse_class_file`, once per text: every registry of the process
    (a deploy builds two, each with the core library) gets the same
    documents, which nothing changes once parsed."""
    return parse_class_file(text, source, legacy)


def class_name_of(doc: dict[str, t.Any]) -> str | None:
    name = doc.get("Name")
    if name is None:
        return None
    return NamespaceResolver(_namespaces(doc)).resolve(str(name))


def _resolve(resolver: NamespaceResolver, written: t.Any, doc: dict[str, t.Any],
             key: str) -> str:
    """A class name written under ``key`` (`Extends`, `Import`), in full."""
    try:
        return resolver.resolve(str(written))
    except InvalidTypeName as exc:
        raise InvalidClassReference(f"{key}: {exc}", span_of(written) or _key_span(doc, key)
                                    ) from None


def _namespaces(doc: dict[str, t.Any]) -> dict[str, str]:
    raw = doc.get("Namespaces") or {}
    if not isinstance(raw, dict):
        raise ClassLoadError("Namespaces must be a mapping of prefix to namespace",
                             span_of(raw) or span_of(doc), code="LAG-E0202")
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def _key_span(data: t.Any, key: str) -> Span | None:
    spans = getattr(data, "key_spans", None)
    if spans and key in spans:
        return t.cast(Span, spans[key])
    return span_of(data)


def _unknown_keys(data: t.Any, allowed: frozenset[str], what: str) -> list[ClassLoadError]:
    return [ClassLoadError(
        f"unknown key {str(key)!r} in {what}; expected one of {', '.join(sorted(allowed))}",
        _key_span(data, key), code="LAG-E0203") for key in data if key not in allowed]


def _check_keys(data: t.Any, allowed: frozenset[str], what: str) -> None:
    for problem in _unknown_keys(data, allowed, what):
        raise problem


def _meta(decl: t.Any, what: str) -> t.Any:
    """The raw `Meta` value of a declaration, its shape checked; the meta
    objects themselves are built on first use (lang.meta)."""
    raw = decl.get("Meta")
    problem = meta.format_problem(raw)
    if problem is not None:
        message, span = problem
        raise ClassLoadError(f"invalid Meta of {what}: {message}",
                             span or _key_span(decl, "Meta"), code="LAG-E0801")
    return raw


def _list_value(value: t.Any) -> list[t.Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


E = t.TypeVar("E", bound=enum.Enum)


def _choice(decl: dict[str, t.Any], key: str, choices: type[E], default: str | None,
            what: str, code: str, expected: str | None = None) -> t.Any:
    """The enum member ``decl[key]`` names (``default`` when absent; None when
    there is no default either), or a ClassLoadError at the key."""
    value = decl.get(key)
    if default is None:
        if value is None:
            return None
    elif not value:
        value = default
    try:
        return choices(str(value))
    except ValueError:
        expected = expected or "one of " + ", ".join(str(c.value) for c in choices)
        raise ClassLoadError(f"invalid {key} {str(value)!r} of {what}; expected {expected}",
                             _key_span(decl, key), code=code) from None


class ClassBuilder:
    """Builds one class; ``find_class(name)`` resolves parents and imports."""

    def __init__(self, package: RuntimePackage,
                 find_class: t.Callable[[str], MuranoClass],
                 functions: FunctionTable) -> None:
        self.package = package
        self.find_class = find_class
        self.functions = functions

    def build(self, doc: dict[str, t.Any], name: str) -> MuranoClass:
        _check_keys(doc, CLASS_KEYS, f"class {name}")
        namespaces = _namespaces(doc)
        resolver = NamespaceResolver(namespaces)
        parents: list[MuranoClass] = []
        extends = doc.get("Extends")
        parent_names = [_resolve(resolver, p, doc, "Extends") for p in _list_value(extends)]
        if not parent_names and name != OBJECT_CLASS:
            parent_names = [OBJECT_CLASS]
        for parent_name in parent_names:
            if parent_name == name:
                raise ClassLoadError(f"class {name} cannot extend itself",
                                     _key_span(doc, "Extends"), code="LAG-E0204")
            parents.append(self._referenced(name, "Extends", parent_name, doc))
        usage = str(doc.get("Usage") or "Class")
        if usage not in ("Class", "Meta"):
            raise ClassLoadError(f"invalid class Usage {usage!r}; expected Class or Meta",
                                 _key_span(doc, "Usage"), code="LAG-E0205")
        cls = MuranoClass(name, self.package, parents, namespaces, span_of(doc), usage)
        cls.meta = _meta(doc, f"class {name}")
        if usage == "Meta":
            self._meta_attributes(cls, doc)
        for key in ("Cardinality", "Applies", "Inherited"):
            if key in doc and usage != "Meta":
                raise ClassLoadError(f"{key} is only allowed in classes with Usage: Meta",
                                     _key_span(doc, key), code="LAG-E0206")
        properties = doc.get("Properties") or {}
        if not isinstance(properties, dict):
            raise ClassLoadError("Properties must be a mapping", _key_span(doc, "Properties"),
                                 code="LAG-E0207")
        for prop_name, decl in properties.items():
            cls.properties[str(prop_name)] = self._property(cls, str(prop_name), decl,
                                                            _key_span(properties, prop_name))
        methods = doc.get("Methods") or doc.get("Workflow") or {}
        if not isinstance(methods, dict):
            raise ClassLoadError("Methods must be a mapping", _key_span(doc, "Methods"),
                                 code="LAG-E0207")
        for method_name, decl in methods.items():
            cls.methods[str(method_name)] = self._method(cls, str(method_name), decl,
                                                         _key_span(methods, method_name))
        for imported in _list_value(doc.get("Import")):
            cls.imports.append(self._referenced(name, "Import",
                                                _resolve(resolver, imported, doc, "Import"), doc))
        return cls

    def problems(self, doc: dict[str, t.Any], name: str) -> list[ClassLoadError]:
        """Every problem of the class document, where :meth:`build` stops at the
        first: each unknown key, and each property and method checked on its
        own (parents and imports are left to :meth:`build`; within one method
        body, each instruction's first problem)."""
        found = _unknown_keys(doc, CLASS_KEYS, f"class {name}")

        def attempt(check: t.Callable[..., t.Any], *args: t.Any) -> None:
            try:
                check(*args)
            except ClassLoadError as exc:
                found.extend(exc.every())
        try:
            namespaces = _namespaces(doc)
        except ClassLoadError as exc:
            return [*found, exc]
        usage = "Meta" if str(doc.get("Usage")) == "Meta" else "Class"
        cls = MuranoClass(name, self.package, [], namespaces, span_of(doc), usage)
        attempt(_meta, doc, f"class {name}")
        for key, members, check in (("Properties", doc.get("Properties"), self._property),
                                    ("Methods", doc.get("Methods") or doc.get("Workflow"),
                                     self._method)):
            if not isinstance(members, dict):
                continue
            for member, decl in members.items():
                attempt(check, cls, str(member), decl, _key_span(members, member))
        return found

    def _referenced(self, name: str, key: str, target: str,
                    doc: dict[str, t.Any]) -> MuranoClass:
        """A class named by `Extends` or `Import`; a missing one is a load error
        of this class, pointing at the key that names it."""
        try:
            return self.find_class(target)
        except NoClassFound:
            raise MissingClassReference(f"class {name}: {key} names class {target}, which "
                                        "is not found", _key_span(doc, key)) from None

    def _meta_attributes(self, cls: MuranoClass, doc: dict[str, t.Any]) -> None:
        cardinality = str(doc.get("Cardinality") or "One")
        if cardinality not in ("One", "Many"):
            raise ClassLoadError(f"invalid Cardinality {cardinality!r}; expected One or Many",
                                 _key_span(doc, "Cardinality"), code="LAG-E0206")
        applies = {str(a) for a in _list_value(doc.get("Applies") or "All")}
        unknown = applies - META_TARGETS
        if unknown:
            raise ClassLoadError(f"invalid Applies value {sorted(unknown)[0]!r}; expected "
                                 f"{', '.join(sorted(META_TARGETS))}",
                                 _key_span(doc, "Applies"), code="LAG-E0206")
        cls.meta_cardinality = cardinality
        cls.meta_applies = frozenset(applies)
        inherited = doc.get("Inherited", False)
        if not isinstance(inherited, bool):
            raise ClassLoadError(f"invalid Inherited {inherited!r}; expected true or false",
                                 _key_span(doc, "Inherited"), code="LAG-E0206")
        cls.meta_inherited = inherited

    def _property(self, cls: MuranoClass, name: str, decl: t.Any, span: Span | None) -> Property:
        if not isinstance(decl, dict):
            raise ClassLoadError(f"property {name} must be a mapping with a Contract", span,
                                 code="LAG-E0208")
        _check_keys(decl, PROPERTY_KEYS, f"property {name}")
        if "Contract" not in decl:
            raise ClassLoadError(f"property {name} has no Contract", span, code="LAG-E0208")
        usage = _choice(decl, "Usage", PropertyUsage, "In", f"property {name}", "LAG-E0209")
        return Property(name, Contract(decl["Contract"], cls), "Default" in decl,
                        plain(decl.get("Default")), usage, cls,
                        _meta(decl, f"property {cls.name}.{name}"), span)

    def _method(self, cls: MuranoClass, name: str, decl: t.Any, span: Span | None) -> Method:
        if decl is None:
            decl = {}
        if not isinstance(decl, dict):
            raise ClassLoadError(f"method {name} must be a mapping", span, code="LAG-E0230")
        _check_keys(decl, METHOD_KEYS, f"method {name}")
        usage = _choice(decl, "Usage", MethodUsage, "Runtime", f"method {name}", "LAG-E0231")
        scope = _choice(decl, "Scope", MethodScope, None, f"method {name}", "LAG-E0232",
                        "Session or Public")
        if usage is MethodUsage.Action:
            if scope is MethodScope.Session:
                raise ClassLoadError(
                    f'Both "Usage: Action" and "Scope: Session" are provided for method {name}',
                    _key_span(decl, "Scope"), code="LAG-E0233")
            scope = MethodScope.Public
        arguments = self._arguments(cls, name, decl.get("Arguments"),
                                    _key_span(decl, "Arguments") or span)
        if usage is MethodUsage.Extension and not arguments:
            raise ClassLoadError(f"extension method {name} must have at least one argument",
                                 span, code="LAG-E0234")
        ctx = macros.ParseContext(span, self.package.legacy, self.functions)
        body = macros.parse_method_body(decl.get("Body"), ctx)
        return Method(name, cls, arguments=arguments, body=body, usage=usage,
                      scope=scope or MethodScope.Session,
                      meta=_meta(decl, f"method {cls.name}::{name}"), span=span)

    def _arguments(self, cls: MuranoClass, method: str, decl: t.Any,
                   span: Span | None) -> list[Argument]:
        records: list[t.Any]
        if isinstance(decl, dict):
            records = [{k: v} for k, v in decl.items()]
        else:
            records = _list_value(decl)
        result: list[Argument] = []
        seen_varargs = seen_kwargs = False
        for record in records:
            if not isinstance(record, dict) or len(record) != 1:
                raise ClassLoadError(f"invalid arguments declaration of method {method}: each "
                                     "argument is a single-key mapping",
                                     span_of(record) or span, code="LAG-E0235")
            arg_name, arg_decl = next(iter(record.items()))
            arg_span = _key_span(record, arg_name) or span
            if arg_decl is None:
                arg_decl = {}
            if not isinstance(arg_decl, dict):
                raise ClassLoadError(f"argument {arg_name} of method {method} must be a mapping",
                                     arg_span, code="LAG-E0235")
            _check_keys(arg_decl, ARGUMENT_KEYS, f"argument {arg_name} of method {method}")
            usage = _choice(arg_decl, "Usage", ArgumentUsage, "Standard",
                            f"argument {arg_name}", "LAG-E0236", "Standard, VarArgs or KwArgs")
            order_error = (usage is ArgumentUsage.Standard and (seen_kwargs or seen_varargs)) or (
                usage is ArgumentUsage.VarArgs and (seen_varargs or seen_kwargs)) or (
                usage is ArgumentUsage.KwArgs and seen_kwargs)
            if order_error:
                raise ClassLoadError(f"Invalid argument order in method {method}", arg_span,
                                     code="LAG-E0237")
            seen_varargs |= usage is ArgumentUsage.VarArgs
            seen_kwargs |= usage is ArgumentUsage.KwArgs
            contract_spec = arg_decl.get("Contract", YaqlExpression("$", arg_span,
                                                                    self.package.legacy))
            result.append(Argument(str(arg_name), Contract(contract_spec, cls),
                                   "Default" in arg_decl,
                                   plain(arg_decl.get("Default")), usage,
                                   _meta(arg_decl, f"argument {arg_name} of method "
                                                   f"{cls.name}::{method}"), arg_span))
        return result


__all__ = ["ClassBuilder", "ClassLoadError", "YamlError", "parse_class_file", "class_name_of",
           "shared_class_file"]
