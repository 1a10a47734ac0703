"""What a TOSCA validation finds: every problem, with its kind, place and entity.

Validation never stops at the first problem: each check adds a
:class:`Problem` to a :class:`Problems` collector, and the front end refuses
the template when the collector holds any (nothing runs then).
"""

from __future__ import annotations

import dataclasses
import typing as t

from laguna.source import Span

#: the YAML does not parse (or repeats a key)
YAML_ERROR = "yaml_error"
#: an unknown keyname, a bad version, an override of a fixed value, a bad shape
INVALID_TEMPLATE = "invalid_template"
#: a type name no definition or import declares
UNKNOWN_TYPE = "unknown_type"
#: a required property, input or keyname has no value
MISSING_REQUIRED = "missing_required"
#: a value breaks a constraint clause
CONSTRAINT_VIOLATION = "constraint_violation"
#: a value is not of the declared type
TYPE_MISMATCH = "type_mismatch"
#: a function names an unknown node, input, property or artifact, or is malformed
BAD_FUNCTION = "bad_function"
#: a requirement names no matching node or capability
UNRESOLVED_REQUIREMENT = "unresolved_requirement"
#: nodes host each other in a circle
CYCLE = "cycle"
#: an artifact file does not exist
MISSING_ARTIFACT = "missing_artifact"
#: an artifact file's checksum is not the one its definition gives
CHECKSUM_MISMATCH = "checksum_mismatch"
#: a CSAR has no entry (or several), or a broken TOSCA.meta
CSAR_INVALID = "csar_invalid"
#: an operation failed at deploy time
OPERATION_FAILED = "operation_failed"

#: day 2 (``laguna action``): the object is no node template, instance or ``workflow``
UNKNOWN_NODE = "unknown_node"
#: day 2: the node has no such operation (or nothing implements it)
UNKNOWN_OPERATION = "unknown_operation"
#: day 2: the topology has no such imperative workflow
UNKNOWN_WORKFLOW = "unknown_workflow"
#: day 2: the workflow's ``implementation`` is an artifact other than a shell script
UNSUPPORTED_WORKFLOW = "unsupported_workflow"
#: day 2: an --arg names no input of the workflow
UNKNOWN_INPUT = "unknown_input"
#: day 2: a workflow's preconditions do not hold
PRECONDITION_FAILED = "precondition_failed"
#: day 2: CheckRunning.check_running found an instance not running
NOT_RUNNING = "not_running"

KINDS = (YAML_ERROR, INVALID_TEMPLATE, UNKNOWN_TYPE, MISSING_REQUIRED, CONSTRAINT_VIOLATION,
         TYPE_MISMATCH, BAD_FUNCTION, UNRESOLVED_REQUIREMENT, CYCLE, MISSING_ARTIFACT,
         CHECKSUM_MISMATCH, CSAR_INVALID, OPERATION_FAILED, UNKNOWN_NODE, UNKNOWN_OPERATION, UNKNOWN_WORKFLOW,
         UNSUPPORTED_WORKFLOW, UNKNOWN_INPUT, PRECONDITION_FAILED, NOT_RUNNING)


@dataclasses.dataclass(frozen=True)
class Problem:
    """One static problem: ``entity`` is the template, type or input it concerns."""

    kind: str
    message: str
    span: Span | None
    entity: str

    def line(self) -> str:
        where = f"{self.span.source}:{self.span.line}:{self.span.col}" if self.span \
            else "?"
        if self.span is not None and self.entity == self.span.source:
            return f"{where}: {self.message}"     # the file is the entity: say it once
        return f"{where}: {self.entity}: {self.message}"

    def to_json(self) -> dict[str, t.Any]:
        return {"kind": self.kind, "message": self.message,
                "file": self.span.source if self.span else None,
                "line": self.span.line if self.span else None,
                "column": self.span.col if self.span else None,
                "entity": self.entity}


class Problems:
    """The problems found so far, in the order they were found; reported sorted."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, kind: str, message: str, span: Span | None, entity: str) -> None:
        self.items.append(Problem(kind, message, span, entity))

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def sorted(self) -> list[Problem]:
        def key(p: Problem) -> tuple[str, int, int, str]:
            if p.span is None:
                return ("", 0, 0, p.message)
            return (p.span.source, p.span.line, p.span.col, p.message)
        unique = list(dict.fromkeys(self.items))
        return sorted(unique, key=key)
