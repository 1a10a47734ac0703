"""Source positions: where in which file a piece of MuranoPL came from.

Every node the YAML loader produces carries a :class:`Span`, so that any later
error (a bad contract, an unknown class, a failed method call) can name the
file and line it stems from.
"""

from __future__ import annotations

import dataclasses
import typing as t


@dataclasses.dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file; lines and columns are 1-based."""

    source: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.col}"

    def shifted(self, offset: int) -> Span:
        """The position ``offset`` characters into a single-line scalar."""
        return Span(self.source, self.line, self.col + offset,
                    self.end_line, self.end_col)


Severity = t.Literal["error", "warning"]


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem a validator found; validators collect these instead of raising."""

    span: Span
    code: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.span}: {self.severity}[{self.code}]: {self.message}"

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.span.source, self.span.line, self.span.col, self.code)
