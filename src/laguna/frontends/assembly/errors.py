"""Error kinds of the assembly-descriptor front end and the problem they carry.

Every refusal has one of the snake_case kinds of the spec page
(docs/DESCRIPTORS.md), each with its code (:data:`CODES`, docs/ERRORS.md);
validation collects every problem (a :class:`laguna.source.Diagnostic`, the one
shape of every language's problems) in a :class:`laguna.source.Problems` and
the intent is rejected with the first one's kind and all of their messages.
::

    LagunaError
     +-- SourceErrors
     |    +-- DescriptorError  the problems that refuse an intent (one or more)
     +-- TransitionFailed      a lifecycle or operation script exited non-zero
"""

from __future__ import annotations

import typing as t

from laguna.errors import LagunaError, SourceErrors, register_kinds
from laguna.source import Diagnostic, Span

#: a descriptor's problem is the one problem shape
Problem = Diagnostic

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


#: the code of each kind (docs/ERRORS.md); ``unknown_operation`` is TOSCA's kind
#: as well, with its code
CODES: dict[str, str] = {
    INVALID_DESCRIPTOR_NAME: "LAG-E1601", INVALID_ASSEMBLY_NAME: "LAG-E1602",
    ASSEMBLY_EXISTS: "LAG-E1603", ASSEMBLY_NOT_FOUND: "LAG-E1604",
    INVALID_DESCRIPTOR: "LAG-E1605", DESCRIPTOR_NOT_FOUND: "LAG-E1606",
    MISSING_REQUIRED_PROPERTY: "LAG-E1607", INVALID_PROPERTY_VALUE: "LAG-E1608",
    UNRESOLVED_REFERENCE: "LAG-E1609", INVALID_DATA_TYPE: "LAG-E1610",
    CIRCULAR_DEPENDENCY: "LAG-E1611", INVALID_RELATIONSHIP: "LAG-E1612",
    UNKNOWN_OPERATION: "LAG-E1521", INVALID_CLUSTER: "LAG-E1613",
    SCALE_LIMIT_EXCEEDED: "LAG-E1614", REFERENCE_NOT_FOUND: "LAG-E1615",
    AMBIGUOUS_REFERENCE: "LAG-E1616", INVALID_INTENT: "LAG-E1617",
    TRANSITION_FAILED: "LAG-E1618",
}


register_kinds(CODES)


def problem(kind: str, message: str, span: Span | None = None,
            entity: str | None = None) -> Diagnostic:
    """A descriptor's problem: ``span`` when it has a place."""
    return Diagnostic(span, CODES[kind], message, "error", kind, entity)


class DescriptorError(SourceErrors):
    """Problems that refuse an intent before anything runs (one or more); its
    message lists them one a line (``[FILE:LINE:COL: ]MESSAGE``)."""

    code = "LAG-E1600"

    def __init__(self, problems: t.Iterable[Diagnostic] | Diagnostic) -> None:
        super().__init__([problems] if isinstance(problems, Diagnostic) else problems,
                         "the descriptor")
        self.problems = self.diagnostics
        self.message = "\n".join(p.brief() for p in self.problems)
        self.args = (self.message,)

    @property
    def kind(self) -> str:
        return self.problems[0].kind

    def __str__(self) -> str:
        return self.message


def fail(kind: str, message: str, span: Span | None = None) -> DescriptorError:
    """A one-problem error, to raise."""
    return DescriptorError(problem(kind, message, span))


class TransitionFailed(LagunaError):
    """A lifecycle or operation script exited non-zero."""

    code = "LAG-E1640"

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.output = output
