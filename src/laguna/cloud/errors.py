"""Errors of the cloud layer.

::

    LagunaError
     +-- CloudError               (LAG-E1200) a stack could not be pushed, read or deleted
          +-- TemplateError       (LAG-E1201) the template is invalid; ``path`` says where
          |                        codes: E1202 reference to a missing resource,
          |                        E1203 unknown resource type, E1204 parameter,
          |                        E1205 dependency cycle, E1206 bad function call
          +-- StackNotFound       (LAG-E1210) no stack of that name
          +-- HostError           (LAG-E1211) a host's agent did not start or stop
          +-- IsolationError      (LAG-E1212) the isolation mode cannot run here

Every error names the stack and, where it has one, the path inside the
template (``resources.web.properties.networks[0].port``) and the resource.
"""

from __future__ import annotations

from laguna.errors import LagunaError


class CloudError(LagunaError):
    """A stack operation failed."""

    code = "LAG-E1200"

    def __init__(self, message: str, *, stack: str | None = None,
                 path: str | None = None, resource: str | None = None,
                 code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.stack = stack
        self.path = path
        self.resource = resource
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        where = f"stack {self.stack!r}: " if self.stack is not None else ""
        if self.path:
            where += f"{self.path}: "
        return f"{where}{self.message}"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(code={self.code!r}, stack={self.stack!r}, "
                f"path={self.path!r}, message={self.message!r})")


class TemplateError(CloudError):
    """A HOT template is malformed or refers to something that does not exist."""

    code = "LAG-E1201"


MISSING_RESOURCE = "LAG-E1202"
UNKNOWN_TYPE = "LAG-E1203"
PARAMETER = "LAG-E1204"
CYCLE = "LAG-E1205"
BAD_FUNCTION = "LAG-E1206"


class StackNotFound(CloudError):
    """The cloud holds no stack of that name."""

    code = "LAG-E1210"


class HostError(CloudError):
    """A host's agent did not become ready, or its processes did not die."""

    code = "LAG-E1211"


class WaitConditionError(CloudError):
    """A wait condition timed out, or one of its signals reported FAILURE."""

    code = "LAG-E1213"


class IsolationError(CloudError):
    """The isolation mode asked for needs what this machine lacks (root, iproute2)."""

    code = "LAG-E1212"
