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
messages.
"""

from __future__ import annotations

import typing as t

# laguna.source (and dataclasses under it) only where a span is built: the
# host agent's errors derive from LagunaError and it never builds one.
if t.TYPE_CHECKING:
    from laguna.source import Diagnostic, Span


class LagunaError(Exception):
    """Base class of all laguna errors."""

    code = "LAG-E0000"


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


def decode_text(data: bytes, source: str, code: str = "LAG-E0103") -> str:
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

    def __init__(self, diagnostics: list[Diagnostic], what: str = "input") -> None:
        self.diagnostics = sorted(diagnostics, key=lambda diagnostic: diagnostic.sort_key())
        errors = [d for d in self.diagnostics if d.severity == "error"]
        self.message = f"{what} has {len(errors)} error(s)"
        super().__init__(self.message)

    def __str__(self) -> str:
        return "\n".join([self.message, *(str(d) for d in self.diagnostics)])
