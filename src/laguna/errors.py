"""The root of every error laguna raises on purpose.

::

    LagunaError
     +-- SourceError            something in an input file is wrong (has a span)
     |    +-- YamlError         (laguna.yamlio) the file is not valid YAML
     |    +-- ClassLoadError    (laguna.lang.errors) a class definition is wrong
     +-- SourceErrors           a validator found one or more problems (diagnostics)
     +-- MuranoPlError          (laguna.lang.errors) a MuranoPL exception at run time

Each error class has a stable ``code`` (``LAG-Exxxx``) listed in
docs/ERRORS.md, so that users and tests can tell errors apart without parsing
messages; every code has a stable snake_case ``kind`` (:func:`kind_of`). Every
error class of laguna derives from LagunaError (some from a library's class
as well, where the library needs its own: click's, FastAPI's, yaql's).

This module stays light (the host agent imports it): no laguna.source, no
third-party package at import time.
"""

from __future__ import annotations

import typing as t

# laguna.source (and dataclasses under it) only where a span is built: the
# host agent's errors derive from LagunaError and it never builds one.
if t.TYPE_CHECKING:
    from laguna.source import Diagnostic, Span


#: the kind of a code that has one of its own (the others take their range's kind)
CODE_KINDS: dict[str, str] = {
    "LAG-E0000": "laguna_error",
    "LAG-E0100": "source_error",
    "LAG-E0101": "yaml_error",
    "LAG-E0102": "invalid_input",
    "LAG-E0103": "yaml_too_deep",
    "LAG-E0104": "yaml_too_large",
    "LAG-E0204": "class_cycle",
    "LAG-E0223": "invalid_expression",
    "LAG-E0242": "missing_class_reference",
    "LAG-E0243": "invalid_class_reference",
    "LAG-E0244": "invalid_catch",
    "LAG-E0245": "unknown_contract",
    "LAG-W0235": "deprecated_action_usage",
    "LAG-E0301": "contract_violation",
    "LAG-E0302": "class_not_found",
    "LAG-E0318": "limit_exceeded",
    "LAG-E0320": "invalid_type_name",
    "LAG-E0324": "deadlock",
    "LAG-E0325": "expression_too_deep",
    "LAG-E0326": "patch_error",
    "LAG-E0400": "muranopl_error",
    "LAG-E0500": "assertion_failed",
    "LAG-E0524": "invalid_resource",
    # packages (the constants of laguna.packages.errors)
    "LAG-E0501": "invalid_version",
    "LAG-E0502": "invalid_requirement",
    "LAG-E0510": "manifest_not_mapping",
    "LAG-E0511": "unsupported_format",
    "LAG-E0512": "missing_manifest_field",
    "LAG-E0513": "invalid_package_type",
    "LAG-E0514": "invalid_full_name",
    "LAG-E0515": "wrong_value_kind",
    "LAG-E0516": "invalid_class_entry",
    "LAG-E0517": "invalid_manifest_text",
    "LAG-W0519": "unknown_manifest_field",
    "LAG-E0530": "manifest_missing",
    "LAG-E0531": "class_file_missing",
    "LAG-E0532": "class_not_defined",
    "LAG-E0533": "unsafe_path",
    "LAG-E0534": "resource_missing",
    "LAG-E0535": "ui_invalid",
    "LAG-E0536": "logo_missing",
    "LAG-E0537": "duplicate_class",
    "LAG-E0538": "class_file_invalid",
    "LAG-E0539": "not_a_package",
    "LAG-E0550": "not_a_zip",
    "LAG-E0551": "archive_unsafe_path",
    "LAG-E0552": "archive_symlink",
    "LAG-E0553": "archive_too_many_entries",
    "LAG-E0554": "archive_entry_too_large",
    "LAG-E0555": "archive_too_large",
    "LAG-E0556": "archive_corrupt",
    "LAG-E0557": "archive_duplicate_entry",
    "LAG-E0560": "package_not_found",
    "LAG-E0590": "package_error",
    # the catalog (the constants of laguna.store.errors)
    "LAG-E0570": "duplicate_package",
    "LAG-E0571": "store_error",
    "LAG-E0572": "category_not_found",
    "LAG-E0573": "unknown_category",
    "LAG-E0574": "duplicate_category",
    "LAG-E0575": "category_in_use",
    "LAG-E0576": "invalid_cursor",
    "LAG-E0705": "unknown_class",
    # the command line (the constants of laguna.cli.errors)
    "LAG-E1300": "invalid_value",
    "LAG-E1301": "output_unwritable",
    "LAG-E1302": "catalog_unusable",
    "LAG-E1303": "no_test_matches",
    "LAG-E1304": "address_in_use",
    "LAG-E1305": "api_unusable",
}

#: the kind of every code of a range (first, last, kind) that has none of its
#: own; the first range that holds a code decides. A range's kind is a family
#: of codes, never the kind of a code of its own.
RANGE_KINDS: tuple[tuple[str, str, str], ...] = (
    ("LAG-E0100", "LAG-E0199", "invalid_yaml"),
    ("LAG-E0200", "LAG-E0299", "invalid_class"),
    ("LAG-W0200", "LAG-W0299", "class_warning"),
    ("LAG-E0300", "LAG-E0399", "engine_error"),
    ("LAG-E0501", "LAG-E0509", "version_error"),
    ("LAG-E0510", "LAG-E0519", "invalid_manifest"),
    ("LAG-W0510", "LAG-W0519", "manifest_warning"),
    ("LAG-E0520", "LAG-E0529", "service_error"),
    ("LAG-E0530", "LAG-E0549", "invalid_package"),
    ("LAG-E0550", "LAG-E0559", "invalid_archive"),
    ("LAG-E0570", "LAG-E0599", "catalog_error"),
    ("LAG-E0700", "LAG-E0799", "unresolved_class"),
    ("LAG-E0800", "LAG-E0899", "invalid_meta"),
    ("LAG-E0900", "LAG-E0999", "engine_error"),
    ("LAG-E1000", "LAG-E1099", "deploy_error"),
    ("LAG-E1100", "LAG-E1199", "agent_error"),
    ("LAG-E1200", "LAG-E1299", "cloud_failure"),
    ("LAG-E1300", "LAG-E1399", "command_error"),
    ("LAG-E1500", "LAG-E1599", "tosca_error"),
    ("LAG-E1600", "LAG-E1699", "descriptor_error"),
    ("LAG-E1700", "LAG-E1799", "api_error"),
    ("LAG-E1800", "LAG-E1899", "form_error"),
)


#: the code of each kind that has one (the inverse of CODE_KINDS, with the front
#: ends' kinds, :func:`register_kinds`)
KIND_CODES: dict[str, str] = {}


def register_kinds(codes: t.Mapping[str, str]) -> None:
    """Give each kind of ``codes`` (a front end's, the deployment layer's) its
    code: one vocabulary, where a kind has one code and a code one kind; a
    ValueError for a kind or code already given another."""
    for kind, code in codes.items():
        if KIND_CODES.get(kind, code) != code or CODE_KINDS.get(code, kind) != kind:
            raise ValueError(f"kind {kind!r} and code {code} clash with "
                             f"{KIND_CODES.get(kind)} / {CODE_KINDS.get(code)!r}")
        KIND_CODES[kind] = code
        CODE_KINDS[code] = kind


def code_of(kind: str) -> str | None:
    """The code of ``kind``, when it has one of its own."""
    return KIND_CODES.get(kind)


def kind_of(code: str) -> str:
    """The stable snake_case kind of ``code`` (docs/ERRORS.md): its own, or its
    range's; ``error`` for a code of no range."""
    if code in CODE_KINDS:
        return CODE_KINDS[code]
    for first, last, kind in RANGE_KINDS:
        if first[:5] == code[:5] and first <= code <= last:
            return kind
    return "error"


register_kinds({kind: code for code, kind in CODE_KINDS.items()})


class LagunaError(Exception):
    """Base class of all laguna errors."""

    code = "LAG-E0000"

    def as_problems(self) -> list[Diagnostic]:
        """This error as the problems a command prints (docs/ERRORS.md): one,
        without a place, of its code, its ``kind`` when it has one (an
        operation's, docs/DEPLOY.md) and its message; errors with places (every
        problem of a validation, an error in a file) give theirs."""
        from laguna.source import Diagnostic

        message = getattr(self, "message", None)
        message = message if isinstance(message, str) and message else str(self)
        prefix = f"error[{self.code}]: "
        if message.startswith(prefix):
            message = message[len(prefix):]
        # an error's kind names the problem when it is one of the vocabulary
        # (then with its code); another (a static action's not_found) stays
        # the error's own: the problem has its code's kind
        kind = getattr(self, "kind", None)
        code = code_of(kind) if isinstance(kind, str) else None
        return [Diagnostic(None, code or self.code, message, "error",
                           t.cast(str, kind) if code else "")]


class SourceError(LagunaError):
    """An error located in an input file."""

    code = "LAG-E0100"

    def __init__(self, message: str, span: Span | None = None,
                 code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        where = f"{self.span}: " if self.span is not None else ""
        return f"{where}error[{self.code}]: {self.message}"

    def as_problems(self) -> list[Diagnostic]:
        from laguna.source import Diagnostic

        return [Diagnostic(self.span, self.code, self.message)]


def decode_text(data: bytes, source: str, code: str) -> str:
    """``data`` as UTF-8 text, or a :class:`SourceError` at the line and column
    of the first byte that cannot be decoded."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", errors="replace")) + 1
        byte = data[exc.start]
        from laguna.source import Span

        raise SourceError(f"the file is not UTF-8 text: byte 0x{byte:02x} cannot be decoded",
                          Span(source, line, col), code) from None


class SourceErrors(LagunaError):
    """Every problem a validation found, raised once at its end."""

    code = "LAG-E0102"

    def __init__(self, diagnostics: t.Iterable[Diagnostic], what: str = "input") -> None:
        self.diagnostics = sorted(diagnostics, key=lambda diagnostic: diagnostic.sort_key())
        errors = [d for d in self.diagnostics if d.severity == "error"]
        self.message = f"{what} has {len(errors)} error(s)"
        super().__init__(self.message)

    def __str__(self) -> str:
        return "\n".join([self.message, *(str(d) for d in self.diagnostics)])

    def as_problems(self) -> list[Diagnostic]:
        return list(self.diagnostics)
