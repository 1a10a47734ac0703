"""A package's ui.yaml read into a UiDefinition: its Version, Templates,
Parameters, ParametersSource, Application and Forms (each with its fields),
every value that is an expression turned into an :class:`Expr`, every
problem a :class:`FormError` naming the file and line."""

from __future__ import annotations

import dataclasses
import typing as t

from yaql.language import exceptions as yaql_exceptions

from laguna.forms.errors import FormError
from laguna.forms.expressions import TEXT_KEYS, Expr, expression_of
from laguna.source import Span
from laguna.yamlio import YamlError, load_all, span_of

#: the newest Version murano-dashboard read (any 1.x or 2.x up to it is read)
LATEST_VERSION = (2, 4)
#: from this Version on the application's `?.name` is the name the user gives
NAMED_FROM = (2, 2)

_SECTIONS = {"Version", "Templates", "Parameters", "ParametersSource", "Application",
             "Forms"}
_FIELD_KEYS = {
    "name", "type", "label", "description", "descriptionTitle", "helpText", "required",
    "initial", "hidden", "regexpValidator", "errorMessages", "validators", "minValue",
    "maxValue", "minLength", "maxLength", "confirmInput", "widgetMedia", "choices",
    "emptyValueMessage", "requirements", "imageType", "widgetAttrs", "includeSubnets",
    "filter", "murano_networks", "allowAutoCreate", "region", "enabled"}


@dataclasses.dataclass(frozen=True)
class FieldDef:
    """One field of a form: its name, type (a field type, or class names), and
    its other keys as written (values may be :class:`Expr`)."""

    name: str
    type: str | tuple[str, ...]
    attrs: dict[str, t.Any]
    span: Span | None

    def get(self, key: str, default: t.Any = None) -> t.Any:
        return self.attrs.get(key, default)


@dataclasses.dataclass(frozen=True)
class FormDef:
    """One step of the wizard: its fields and its form-wide validators."""

    name: str
    fields: tuple[FieldDef, ...]
    validators: tuple[dict[str, t.Any], ...]
    span: Span | None


@dataclasses.dataclass(frozen=True)
class UiDefinition:
    """A whole ui.yaml."""

    source: str
    version: tuple[int, ...]
    templates: dict[str, t.Any]
    parameters: dict[str, t.Any]
    parameters_source: str | None
    application: dict[str, t.Any]
    forms: tuple[FormDef, ...]

    @property
    def names_application(self) -> bool:
        """Whether the application's `?.name` comes from the user (2.2 on)."""
        return self.version >= NAMED_FROM


def read(text: str, source: str) -> UiDefinition:
    """Read the ui.yaml ``text`` (of file ``source``)."""
    try:
        documents = load_all(text, source, _scalar)
    except YamlError as error:
        raise FormError(error.message, error.span) from None
    document = documents[0] if documents else None
    if not isinstance(document, dict):
        raise FormError("a ui.yaml is a mapping of Version, Forms, Application...",
                        span_of(document) or Span(source, 1, 1))
    where = span_of(document)
    for key in document:
        if key not in _SECTIONS:
            raise FormError(f"unknown section {key!r} (known: {', '.join(sorted(_SECTIONS))})",
                            _key_span(document, key))
    written = getattr(document, "number_texts", {}).get("Version")
    version = _version(written or document.get("Version", "2.4"), _key_span(document, "Version") or where)
    if "Application" not in document:
        raise FormError("the Application section is missing", where)
    application = _expressions(document["Application"])
    if not isinstance(application, dict):
        raise FormError("Application is a mapping (the application's object)",
                        _key_span(document, "Application"))
    templates = _expressions(document.get("Templates") or {})
    if not isinstance(templates, dict):
        raise FormError("Templates is a mapping of names to objects",
                        _key_span(document, "Templates"))
    parameters = _expressions(document.get("Parameters") or {})
    if not isinstance(parameters, dict):
        raise FormError("Parameters is a mapping of names to values",
                        _key_span(document, "Parameters"))
    source_of = document.get("ParametersSource")
    if source_of is not None and not isinstance(source_of, str):
        raise FormError("ParametersSource is a method's name (Class.method or method)",
                        _key_span(document, "ParametersSource"))
    forms = _forms(document.get("Forms") or [], _key_span(document, "Forms") or where)
    return UiDefinition(source, version, templates, parameters, source_of, application,
                        forms)


def parameters_source(ui: UiDefinition, fqn: str) -> tuple[str, str] | None:
    """The class and static method that give the form more Parameters
    (``ParametersSource``), as murano-dashboard read it: ``Class.method``, or a
    method alone of the Application's ``?.type`` (else of the package ``fqn``)."""
    if not ui.parameters_source:
        return None
    class_name, _, method = ui.parameters_source.rpartition(".")
    if not class_name:
        marks = ui.application.get("?")
        written = marks.get("type") if isinstance(marks, dict) else None
        class_name = written if isinstance(written, str) and written else fqn
    return class_name, method


def with_parameters(ui: UiDefinition, given: t.Mapping[str, t.Any]) -> UiDefinition:
    """``ui`` with ``given`` (what ParametersSource's method answered: plain
    data, never evaluated) over its own Parameters, as murano-dashboard
    combined them."""
    return dataclasses.replace(ui, parameters={**ui.parameters, **given})


def _key_span(mapping: t.Any, key: str) -> Span | None:
    spans = getattr(mapping, "key_spans", None)
    return spans.get(key) if spans else span_of(mapping)


def _version(value: t.Any, span: Span | None) -> tuple[int, ...]:
    text = str(value)
    try:
        version = tuple(int(part) for part in text.split("."))
    except ValueError:
        raise FormError(f"Version {text!r} is not a version (e.g. 2.4)", span) from None
    if not version or version[0] not in (1, 2) or version > LATEST_VERSION:
        raise FormError(f"Version {text} is not supported (1.x to "
                        f"{'.'.join(map(str, LATEST_VERSION))})", span)
    return version


def _expressions(value: t.Any, text: bool = False,
                 text_keys: frozenset[str] = frozenset()) -> t.Any:
    """``value`` with its expression strings as Expr (except under ``text_keys``:
    in a field's definition, TEXT_KEYS; in Application and Templates, none)."""
    if isinstance(value, dict):
        converted = {str(k): _expressions(v, text or k in text_keys, text_keys)
                     for k, v in value.items()}
        if hasattr(value, "span"):
            return _SpannedDict(converted, value.span)
        return converted
    if isinstance(value, list):
        return [_expressions(v, text, text_keys) for v in value]
    if isinstance(value, PlainScalar) and not text:
        return expression_of(str(value), span_of(value)) or str(value)
    if isinstance(value, str):
        return str(value)
    return value


class PlainScalar(str):
    """A string written without quotes: only those may be expressions (yaml's
    implicit resolvers, which murano-dashboard's loader used, see no other)."""

    span: Span


def _scalar(text: str, span: Span, forced: bool) -> t.Any:
    if forced:   # `!yaql`: an expression whatever it looks like
        try:
            return Expr(text, span)
        except yaql_exceptions.YaqlException as error:
            raise FormError(f"!yaql {text!r} is not an expression: {error}", span) from None
    plain = PlainScalar(text)
    plain.span = span
    return plain


class _SpannedDict(dict):  # type: ignore[type-arg]
    """A mapping that keeps where it was written."""

    def __init__(self, items: dict[str, t.Any], span: Span) -> None:
        super().__init__(items)
        self.span = span


def _forms(value: t.Any, span: Span | None) -> tuple[FormDef, ...]:
    if not isinstance(value, list):
        raise FormError("Forms is a list of forms, each a mapping of its name to its "
                        "fields", span)
    forms = []
    for item in value:
        if not isinstance(item, dict) or len(item) != 1:
            raise FormError("a form is a mapping of one name to its fields",
                            span_of(item) or span)
        (name, body), = item.items()
        body_span = span_of(body) or span_of(item)
        if not isinstance(body, dict) or not isinstance(body.get("fields"), list):
            raise FormError(f"form {name} has no list of fields", body_span)
        fields = tuple(_field(f, str(name), body_span) for f in body["fields"])
        validators = tuple(_expressions(v, False, TEXT_KEYS)
                           for v in body.get("validators") or [])
        forms.append(FormDef(str(name), fields, validators, span_of(item)))
    return tuple(forms)


def _field(value: t.Any, form: str, span: Span | None) -> FieldDef:
    where = span_of(value) or span
    if not isinstance(value, dict):
        raise FormError(f"a field of form {form} is not a mapping", where)
    for key in ("name", "type"):
        if key not in value:
            raise FormError(f"a field of form {form} has no {key}", where)
    for key in value:
        if key not in _FIELD_KEYS:
            raise FormError(f"field {value['name']} of form {form}: unknown key {key!r}",
                            _key_span(value, key))
    kind = value["type"]
    field_type: str | tuple[str, ...] = (
        tuple(str(k) for k in kind) if isinstance(kind, list) else str(kind))
    attrs = {str(k): _expressions(v, k in TEXT_KEYS, TEXT_KEYS) for k, v in value.items()
             if k not in ("name", "type")}
    return FieldDef(str(value["name"]), field_type, attrs, where)


__all__ = ["Expr", "FieldDef", "FormDef", "UiDefinition", "read"]
