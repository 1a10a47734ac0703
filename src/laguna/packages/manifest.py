"""The package manifest (``manifest.yaml``): its fields, validation and model.

Validation goes normalise -> validate -> build: every field is checked
against the ``FIELDS`` table, every problem becomes a
:class:`~laguna.source.Diagnostic` with the file position of the offending
key or value, and only a manifest without errors is built into a
:class:`Manifest`. :func:`validate_manifest` returns the diagnostics;
:func:`load_manifest` raises them all at once as a
:class:`~laguna.packages.errors.PackageFormatError`.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import typing as t

from laguna.packages import errors as codes
from laguna.packages.errors import PackageFormatError, VersionError
from laguna.packages.versions import Requirement, Version, parse_requirement, parse_version
from laguna.source import Diagnostic, Span
from laguna.yamlio import YamlError, YMap, YSeq, load_all, plain, span_of

MANIFEST_FILE = "manifest.yaml"
CORE_LIBRARY = "io.murano"
DEFAULT_UI_FILE = "ui.yaml"
DEFAULT_LOGO_FILE = "logo.png"


@dataclasses.dataclass(frozen=True, order=True)
class FormatVersion:
    """The ``Format`` of a package; it selects the language behaviour.

    Ordered, so the engine can ask ``fmt <= FORMAT_1_1`` and so on.
    """

    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def name(self) -> str:
        """The format as Murano spelled it in full, e.g. ``MuranoPL/1.4``."""
        return f"MuranoPL/{self}"

    @property
    def legacy_yaql(self) -> bool:
        """1.0 and 1.1 run expressions with yaql 0.2 compatibility."""
        return self <= FORMAT_1_1

    @property
    def type_objects(self) -> bool:
        """From 1.3, ``type()`` returns type objects instead of names."""
        return self >= FORMAT_1_3

    @property
    def method_scope(self) -> bool:
        """From 1.4, methods have a ``Scope``."""
        return self >= FORMAT_1_4


FORMAT_1_0 = FormatVersion(1, 0)
FORMAT_1_1 = FormatVersion(1, 1)
FORMAT_1_2 = FormatVersion(1, 2)
FORMAT_1_3 = FormatVersion(1, 3)
FORMAT_1_4 = FormatVersion(1, 4)
SUPPORTED_FORMATS = (FORMAT_1_0, FORMAT_1_1, FORMAT_1_2, FORMAT_1_3, FORMAT_1_4)

_FORMAT = re.compile(r"^(?:MuranoPL/)?([0-9]+)\.([0-9]+)$")
# Murano's rule: word characters and dots, no empty component.
_FULL_NAME = re.compile(r"^\w+(?:\.\w+)*$")


class PackageType(str, enum.Enum):
    """What a package is for: a deployable application or a library of classes."""

    APPLICATION = "Application"
    LIBRARY = "Library"

    def __str__(self) -> str:
        return self.value


def parse_format(value: object) -> FormatVersion:
    """Read a ``Format`` value (``1.3``, ``"1.3"`` or ``"MuranoPL/1.3"``; None is 1.0)."""
    if value is None or value == "":
        return FORMAT_1_0
    text = str(value).strip() if isinstance(value, (str, float)) else None
    match = _FORMAT.match(text) if text is not None else None
    if match is not None:
        found = FormatVersion(int(match.group(1)), int(match.group(2)))
        if found in SUPPORTED_FORMATS:
            return found
    supported = ", ".join(str(f) for f in SUPPORTED_FORMATS)
    raise ValueError(f"unsupported Format {_show(value)}; expected one of {supported}"
                     f" (optionally written MuranoPL/<version>)")


@dataclasses.dataclass(frozen=True)
class Manifest:
    """A valid manifest. Values are plain Python (no spans) except ``document``."""

    format: FormatVersion
    type: PackageType
    full_name: str
    version: Version
    name: str
    description: str | None = None
    author: str | None = None
    tags: tuple[str, ...] = ()
    classes: dict[str, str] = dataclasses.field(default_factory=dict)
    require: dict[str, Requirement] = dataclasses.field(default_factory=dict)
    ui: str | None = None
    logo: str | None = None
    supplier: dict[str, t.Any] = dataclasses.field(default_factory=dict)
    meta: t.Any = None
    source: str = MANIFEST_FILE
    #: the loaded document, for the positions of its keys and values
    document: YMap | None = dataclasses.field(default=None, compare=False, repr=False)
    #: warnings found while validating (unknown fields)
    warnings: tuple[Diagnostic, ...] = dataclasses.field(default=(), compare=False, repr=False)

    @property
    def requirements(self) -> dict[str, Requirement]:
        """``Require`` plus the implicit ``io.murano: 0`` when it is absent."""
        result = dict(self.require)
        if self.full_name != CORE_LIBRARY and CORE_LIBRARY not in result:
            result[CORE_LIBRARY] = parse_requirement("0")
        return result

    def span(self, *path: str) -> Span:
        """The position of a key (``span("Classes", "Foo")``) or the file start."""
        node: t.Any = self.document
        found = Span(self.source, 1, 1)
        for key in path:
            if not isinstance(node, YMap) or key not in node:
                break
            found = node.key_spans[key]
            node = node[key]
        return found

    def to_data(self) -> dict[str, t.Any]:
        """The manifest as JSON-compatible data (normalised field values)."""
        return {
            "Format": self.format.name,
            "Type": self.type.value,
            "FullName": self.full_name,
            "Name": self.name,
            "Version": str(self.version),
            "Description": self.description,
            "Author": self.author,
            "Tags": list(self.tags),
            "Classes": dict(self.classes),
            "Require": {name: req.text for name, req in self.require.items()},
            "UI": self.ui,
            "Logo": self.logo,
            "Supplier": self.supplier,
            "Meta": self.meta,
        }


# ---------------------------------------------------------------------------
# Fields as data: each one names its reader, which turns the YAML value into
# the model value or reports what is wrong.


class _Context:
    def __init__(self, source: str, document: YMap) -> None:
        self.source = source
        self.document = document
        self.diagnostics: list[Diagnostic] = []

    def error(self, span: Span, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(span, code, message))

    def value_span(self, key: str) -> Span:
        """Scalars such as numbers carry no span; fall back on the key's."""
        return span_of(self.document[key]) or self.document.key_spans[key]


_Reader = t.Callable[[_Context, str, t.Any], t.Any]


@dataclasses.dataclass(frozen=True)
class _Field:
    key: str
    attribute: str
    read: _Reader
    required: bool = False


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, (YMap, dict)):
        return "a mapping"
    if isinstance(value, (YSeq, list)):
        return "a list"
    return repr(value)


def _read_format(ctx: _Context, key: str, value: object) -> FormatVersion | None:
    try:
        return parse_format(value)
    except ValueError as exc:
        ctx.error(ctx.value_span(key), codes.UNSUPPORTED_FORMAT, str(exc))
        return None


def _read_type(ctx: _Context, key: str, value: object) -> PackageType | None:
    for kind in PackageType:
        if value == kind.value:
            return kind
    ctx.error(ctx.value_span(key), codes.INVALID_TYPE,
              f"'Type' must be 'Application' or 'Library', not {_show(value)}")
    return None


def _read_full_name(ctx: _Context, key: str, value: object) -> str | None:
    if not isinstance(value, str) or not _FULL_NAME.match(value):
        ctx.error(ctx.value_span(key), codes.INVALID_FULL_NAME,
                  f"'FullName' must be a dotted name like com.example.App, not {_show(value)}")
        return None
    return str(value)


def _read_text(ctx: _Context, key: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        ctx.error(ctx.value_span(key), codes.WRONG_VALUE_KIND,
                  f"{key!r} must be a string, not {_show(value)}")
        return None
    return str(value)


def _written(mapping: YMap, key: t.Any) -> str:
    """A version as written: YAML reads `1.10` as the number 1.1."""
    texts: dict[t.Any, str] = getattr(mapping, "number_texts", None) or {}
    return texts.get(key, str(mapping[key]))


def _read_version(ctx: _Context, key: str, value: object) -> Version | None:
    if value is not None and not isinstance(value, (str, int, float)) or isinstance(value, bool):
        ctx.error(ctx.value_span(key), codes.WRONG_VALUE_KIND,
                  f"'Version' must be a version string like 1.2.3, not {_show(value)}")
        return None
    try:
        return parse_version(None if value is None else _written(ctx.document, key))
    except VersionError as exc:
        ctx.error(ctx.value_span(key), codes.INVALID_VERSION, exc.message)
        return None


def _read_tags(ctx: _Context, key: str, value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list):
        ctx.error(ctx.value_span(key), codes.WRONG_VALUE_KIND,
                  f"'Tags' must be a list of strings, not {_show(value)}")
        return None
    tags: list[str] = []
    ok = True
    for index, item in enumerate(value):
        # A tag like 2016 comes out of YAML as a number; keep it as text.
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            tags.append(str(item))
        else:
            ok = False
            ctx.error(span_of(item) or ctx.value_span(key), codes.WRONG_VALUE_KIND,
                      f"'Tags' item {index} must be a string, not {_show(item)}")
    return tuple(tags) if ok else None


def _mapping(ctx: _Context, key: str, value: object) -> YMap | None:
    if value is None:
        return YMap()
    if not isinstance(value, YMap):
        ctx.error(ctx.value_span(key), codes.WRONG_VALUE_KIND,
                  f"{key!r} must be a mapping, not {_show(value)}")
        return None
    return value


def _read_classes(ctx: _Context, key: str, value: object) -> dict[str, str] | None:
    mapping = _mapping(ctx, key, value)
    if mapping is None:
        return None
    classes: dict[str, str] = {}
    ok = True
    for name, file in mapping.items():
        name_span = mapping.key_spans[name]
        if not isinstance(name, str) or not _FULL_NAME.match(name):
            ok = False
            ctx.error(name_span, codes.INVALID_CLASS_ENTRY,
                      f"class name {_show(name)} in 'Classes' is not a dotted name")
            continue
        problem = _relative_path_problem(file)
        if problem is not None:
            ok = False
            ctx.error(span_of(file) or name_span, codes.INVALID_CLASS_ENTRY,
                      f"file of class {name!r} {problem}")
            continue
        classes[str(name)] = str(file)
    return classes if ok else None


def _relative_path_problem(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return f"must be a file name, not {_show(value)}"
    parts = value.replace("\\", "/").split("/")
    if value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value) or ".." in parts:
        return f"must be a path inside the package, not {_show(value)}"
    return None


def _read_require(ctx: _Context, key: str, value: object) -> dict[str, Requirement] | None:
    mapping = _mapping(ctx, key, value)
    if mapping is None:
        return None
    require: dict[str, Requirement] = {}
    ok = True
    for name, spec in mapping.items():
        name_span = mapping.key_spans[name]
        if not isinstance(name, str) or not _FULL_NAME.match(name):
            ok = False
            ctx.error(name_span, codes.INVALID_FULL_NAME,
                      f"required package {_show(name)} is not a dotted name")
            continue
        if spec is not None and (not isinstance(spec, (str, int, float)) or isinstance(spec, bool)):
            ok = False
            ctx.error(span_of(spec) or name_span, codes.INVALID_REQUIREMENT,
                      f"requirement of {name!r} must be a version specification, not {_show(spec)}")
            continue
        try:
            require[str(name)] = parse_requirement(None if spec is None
                                                   else _written(mapping, name))
        except VersionError as exc:
            ok = False
            ctx.error(span_of(spec) or name_span, codes.INVALID_REQUIREMENT,
                      f"requirement of {name!r}: {exc.message}")
    return require if ok else None


def _read_file_name(ctx: _Context, key: str, value: object) -> str | None:
    if value is None:
        return None
    problem = _relative_path_problem(value)
    if problem is not None:
        ctx.error(ctx.value_span(key), codes.WRONG_VALUE_KIND, f"{key!r} {problem}")
        return None
    return str(value)


def _read_supplier(ctx: _Context, key: str, value: object) -> dict[str, t.Any] | None:
    mapping = _mapping(ctx, key, value)
    return None if mapping is None else t.cast(dict[str, t.Any], plain(mapping))


def _read_raw(ctx: _Context, key: str, value: object) -> t.Any:
    return plain(value)


FIELDS: tuple[_Field, ...] = (
    _Field("Format", "format", _read_format),
    _Field("Type", "type", _read_type, required=True),
    _Field("FullName", "full_name", _read_full_name, required=True),
    _Field("Name", "name", _read_text),
    _Field("Version", "version", _read_version),
    _Field("Description", "description", _read_text),
    _Field("Author", "author", _read_text),
    _Field("Tags", "tags", _read_tags),
    _Field("Classes", "classes", _read_classes),
    _Field("Require", "require", _read_require),
    _Field("UI", "ui", _read_file_name),
    _Field("Logo", "logo", _read_file_name),
    _Field("Supplier", "supplier", _read_supplier),
    _Field("Meta", "meta", _read_raw),
)
_KNOWN = {f.key for f in FIELDS}


def validate_manifest(text: str, source: str = MANIFEST_FILE) -> tuple[Manifest | None, list[Diagnostic]]:
    """Check a manifest; return the model (None if any error) and every diagnostic.

    Diagnostics come in file order.
    """
    try:
        documents = load_all(text, source)
    except YamlError as exc:
        span = exc.span or Span(source, 1, 1)
        return None, [Diagnostic(span, codes.MANIFEST_YAML, exc.message)]
    start = Span(source, 1, 1)
    if len(documents) != 1 or not isinstance(documents[0], YMap):
        what = "is empty" if not documents else (
            "has several documents" if len(documents) > 1 else "is not a mapping")
        span = span_of(documents[0]) or start if documents else start
        return None, [Diagnostic(span, codes.MANIFEST_NOT_MAPPING,
                                 f"the manifest {what}; expected one mapping of fields")]
    document: YMap = documents[0]
    ctx = _Context(source, document)
    values: dict[str, t.Any] = {}
    failed = False
    for key in document:
        if key not in _KNOWN:
            known = ", ".join(f.key for f in FIELDS)
            ctx.diagnostics.append(Diagnostic(
                document.key_spans[key], codes.UNKNOWN_FIELD,
                f"unknown manifest field {_show(key)} is ignored; known fields: {known}",
                "warning"))
    for field in FIELDS:
        if field.key not in document:
            if field.required:
                failed = True
                ctx.error(document.span, codes.MISSING_FIELD, f"{field.key!r} is required")
            continue
        before = len(ctx.diagnostics)
        values[field.attribute] = field.read(ctx, field.key, document[field.key])
        failed = failed or len(ctx.diagnostics) > before
    ctx.diagnostics.sort(key=Diagnostic.sort_key)
    if failed:
        return None, ctx.diagnostics
    values.setdefault("format", FORMAT_1_0)
    values.setdefault("version", parse_version(None))
    values["format"] = values["format"] or FORMAT_1_0
    values["name"] = values.get("name") or values["full_name"]
    values = {k: v for k, v in values.items() if v is not None}
    warnings = tuple(ctx.diagnostics)
    manifest = Manifest(**values, source=source, document=document, warnings=warnings)
    return manifest, ctx.diagnostics


def load_manifest(text: str, source: str = MANIFEST_FILE) -> Manifest:
    """Build the manifest, or raise one error listing every problem."""
    manifest, diagnostics = validate_manifest(text, source)
    if manifest is None:
        raise PackageFormatError(diagnostics, what=source)
    return manifest
