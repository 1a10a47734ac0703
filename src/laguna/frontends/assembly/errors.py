"""Error kinds of the assembly-descriptor front end and the problem they carry.

Every refusal has one of the snake_case kinds of the spec page
(docs/DESCRIPTORS.md); validation collects every :class:`Problem` and the
intent is rejected with the first one's kind and all of their messages.
::

    DescriptorError      one problem, raised at the first error (runtime code)
    Problems             every problem validation found, ranked by position
"""

from __future__ import annotations

import dataclasses

from laguna.source import Span

INVALID_DESCRIPTOR_NAME = "invalid_descriptor_name"
INVALID_ASSEMBLY_NAME = "invalid_assembly_name"
ASSEMBLY_EXISTS = "assembly_exists"
ASSEMBLY_NOT_FOUND = "assembly_not_found"
INVALID_DESCRIPTOR = "invalid_descriptor"
DESCRIPTOR_NOT_FOUND = "descriptor_not_found"
MISSING_REQUIRED_PROPERTY = "missing_required_property"
INVALID_PROPERTY_VALUE = "invalid_property_value"
UNRESOLVED_REFERENCE = "unresolved_reference"
INVALID_DATA_TYPE = "invalid_data_type"
CIRCULAR_DEPENDENCY = "circular_dependency"
INVALID_RELATIONSHIP = "invalid_relationship"
UNKNOWN_OPERATION = "unknown_operation"
INVALID_CLUSTER = "invalid_cluster"
SCALE_LIMIT_EXCEEDED = "scale_limit_exceeded"
REFERENCE_NOT_FOUND = "reference_not_found"
AMBIGUOUS_REFERENCE = "ambiguous_reference"
INVALID_INTENT = "invalid_intent"
TRANSITION_FAILED = "transition_failed"

KINDS = (INVALID_DESCRIPTOR_NAME, INVALID_ASSEMBLY_NAME, ASSEMBLY_EXISTS, ASSEMBLY_NOT_FOUND,
         INVALID_DESCRIPTOR, DESCRIPTOR_NOT_FOUND, MISSING_REQUIRED_PROPERTY,
         INVALID_PROPERTY_VALUE, UNRESOLVED_REFERENCE, INVALID_DATA_TYPE, CIRCULAR_DEPENDENCY,
         INVALID_RELATIONSHIP, UNKNOWN_OPERATION, INVALID_CLUSTER, SCALE_LIMIT_EXCEEDED,
         REFERENCE_NOT_FOUND, AMBIGUOUS_REFERENCE, INVALID_INTENT, TRANSITION_FAILED)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing wrong with a descriptor or an intent; ``span`` when it has a place."""

    kind: str
    message: str
    span: Span | None = None

    def __str__(self) -> str:
        return f"{self.span}: {self.message}" if self.span is not None else self.message

    def sort_key(self) -> tuple[str, int, int]:
        if self.span is None:
            return ("", 0, 0)
        return (self.span.source, self.span.line, self.span.col)


class DescriptorError(Exception):
    """Problems that refuse an intent before anything runs (one or more)."""

    def __init__(self, problems: list[Problem] | Problem) -> None:
        self.problems = sorted(problems if isinstance(problems, list) else [problems],
                               key=Problem.sort_key)
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def kind(self) -> str:
        return self.problems[0].kind

    @property
    def message(self) -> str:
        return "\n".join(str(p) for p in self.problems)


def fail(kind: str, message: str, span: Span | None = None) -> DescriptorError:
    """A one-problem error, to raise."""
    return DescriptorError(Problem(kind, message, span))


class TransitionFailed(Exception):
    """A lifecycle or operation script exited non-zero."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.output = output
