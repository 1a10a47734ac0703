"""Source positions: where in which file a piece of MuranoPL came from.

Every node the YAML loader produces carries a :class:`Span`, so that any later
error (a bad contract, an unknown class, a failed method call) can name the
file and line it stems from.
"""

from __future__ import annotations

import dataclasses
import typing as t

from laguna.errors import SourceErrors, kind_of


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
    """One problem found in an input, in every language's vocabulary: a stable
    ``code`` (``LAG-Exxxx``, warnings ``LAG-Wxxxx``, docs/ERRORS.md), a stable
    snake_case ``kind`` (when not given: the kind docs/ERRORS.md gives the code,
    :func:`laguna.errors.kind_of`), the ``message``, the ``span`` when it has a
    place and the ``entity`` it concerns when it has one (a TOSCA node template,
    type or input; a descriptor's property path). Validators collect these in a
    :class:`Problems` instead of raising."""

    span: Span | None
    code: str
    message: str
    severity: Severity = "error"
    kind: str = ""
    entity: str | None = None

    def __post_init__(self) -> None:
        if not self.kind:
            object.__setattr__(self, "kind", kind_of(self.code))

    def __str__(self) -> str:
        """The problem's line without its kind: ``[FILE:LINE:COL: ]SEVERITY[CODE]:
        [ENTITY: ]MESSAGE``, as an error's message lists its problems; commands
        print :func:`render`'s line."""
        return f"{self.severity}[{self.code}]: ".join(self._parts())

    def _parts(self) -> tuple[str, str]:
        span = self.span
        where = f"{span.source}:{span.line}:{span.col}: " if span is not None else ""
        entity = f"{self.entity}: " if self.entity and (
            span is None or self.entity != span.source) else ""
        return where, f"{entity}{self.message}"

    def brief(self) -> str:
        """``[FILE:LINE:COL: ][ENTITY: ]MESSAGE``: the problem without its code and
        kind, as a TOSCA or descriptor error's message lists its problems."""
        return "".join(self._parts())

    def sort_key(self) -> tuple[str, int, int, str]:
        """Spanless problems first, then by file, line, column and code; problems
        of one code at one place keep the order they were found in (the order of
        the checks, which follows the order of the keys the spec lists)."""
        if self.span is None:
            return ("", 0, 0, self.code)
        return (self.span.source, self.span.line, self.span.col, self.code)

    def to_json(self) -> dict[str, t.Any]:
        """The one JSON shape of a problem (``--json`` of every command)."""
        return {"code": self.code, "kind": self.kind, "severity": self.severity,
                "message": self.message,
                "file": self.span.source if self.span is not None else None,
                "line": self.span.line if self.span is not None else None,
                "column": self.span.col if self.span is not None else None,
                "entity": self.entity}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> Diagnostic:
        """The problem :meth:`to_json` gave."""
        span = Span(str(data["file"]), int(data.get("line") or 1), int(data.get("column") or 1)) \
            if data.get("file") is not None else None
        severity: Severity = "warning" if data.get("severity") == "warning" else "error"
        return cls(span, str(data["code"]), str(data["message"]), severity,
                   str(data.get("kind") or ""), data.get("entity"))

    def under(self, base: str | None) -> Diagnostic:
        """The problem with its file shown under ``base`` (a package's folder)."""
        if not base or self.span is None or self.span.source.startswith("/") \
                or "://" in self.span.source:
            return self
        return dataclasses.replace(self, span=dataclasses.replace(
            self.span, source=f"{base.rstrip('/')}/{self.span.source}"))


def render(problem: Diagnostic, base: str | None = None) -> str:
    """The one human line of a problem, in every command and language::

        [FILE:LINE:COL: ]SEVERITY[CODE]: [ENTITY: ]MESSAGE [KIND]

    the place when it has one (its file under ``base`` when given), the entity
    when it has one and it is not the file itself (a YAML error names the file
    as its entity), the kind last in brackets (as compilers name a warning's
    flag)."""
    return f"{problem.under(base)} [{problem.kind}]"


class Problems:
    """The one collector of problems: front ends and checks append every problem
    they find and go on; at the end the collector is reported (sorted by place,
    each problem once) or raised as one :class:`~laguna.errors.SourceErrors`."""

    def __init__(self, items: t.Iterable[Diagnostic] = ()) -> None:
        self.items: list[Diagnostic] = list(items)

    def append(self, problem: Diagnostic) -> None:
        self.items.append(problem)

    def extend(self, problems: t.Iterable[Diagnostic]) -> None:
        self.items.extend(problems)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> t.Iterator[Diagnostic]:
        return iter(self.items)

    def errors(self) -> list[Diagnostic]:
        return [p for p in self.items if p.severity == "error"]

    def sorted(self) -> list[Diagnostic]:
        """Each problem once, by place and code (spanless ones first; ties in the
        order found)."""
        return sorted(dict.fromkeys(self.items), key=Diagnostic.sort_key)

    def raise_errors(self, error: t.Callable[[list[Diagnostic]], SourceErrors] | None = None,
                     what: str = "input") -> None:
        """Raise every problem (each once, sorted) as one SourceErrors, or as
        ``error(problems)`` (a front end's subclass), when any is an error."""
        if self.errors():
            found = self.sorted()
            raise error(found) if error is not None else SourceErrors(found, what)
