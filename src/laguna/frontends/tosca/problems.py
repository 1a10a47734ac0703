"""What a TOSCA validation finds: every problem, with its kind, place and entity.

Validation never stops at the first problem: each check adds a problem (a
:class:`laguna.source.Diagnostic`, the one shape of every language's problems)
to a :class:`Problems` collector, and the front end refuses the template when
the collector holds any (nothing runs then). Each kind below has its code
(:data:`CODES`, docs/ERRORS.md).
"""

from __future__ import annotations

from laguna.errors import register_kinds
from laguna.source import Diagnostic, Span
from laguna.source import Problems as _Problems

#: a TOSCA problem is the one problem shape
Problem = Diagnostic

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

#: the code of each kind (docs/ERRORS.md): ``yaml_error`` is every language's
#: (LAG-E0101) and ``unknown_operation`` the descriptors' kind as well, with
#: this one code
CODES: dict[str, str] = {
    YAML_ERROR: "LAG-E0101", INVALID_TEMPLATE: "LAG-E1502", UNKNOWN_TYPE: "LAG-E1503",
    MISSING_REQUIRED: "LAG-E1504", CONSTRAINT_VIOLATION: "LAG-E1505",
    TYPE_MISMATCH: "LAG-E1506", BAD_FUNCTION: "LAG-E1507",
    UNRESOLVED_REQUIREMENT: "LAG-E1508", CYCLE: "LAG-E1509", MISSING_ARTIFACT: "LAG-E1510",
    CHECKSUM_MISMATCH: "LAG-E1511", CSAR_INVALID: "LAG-E1512", OPERATION_FAILED: "LAG-E1513",
    UNKNOWN_NODE: "LAG-E1520", UNKNOWN_OPERATION: "LAG-E1521", UNKNOWN_WORKFLOW: "LAG-E1522",
    UNSUPPORTED_WORKFLOW: "LAG-E1523", UNKNOWN_INPUT: "LAG-E1524",
    PRECONDITION_FAILED: "LAG-E1525", NOT_RUNNING: "LAG-E1526",
}


register_kinds(CODES)


def problem(kind: str, message: str, span: Span | None, entity: str) -> Diagnostic:
    """A TOSCA problem: ``entity`` is the template, type or input it concerns."""
    return Diagnostic(span, CODES[kind], message, "error", kind, entity)


class Problems(_Problems):
    """The collector, with TOSCA's way of adding a problem (by kind)."""

    def add(self, kind: str, message: str, span: Span | None, entity: str) -> None:
        self.append(problem(kind, message, span, entity))
