"""Error kinds of the deployment layer and the errors that carry them.

Every failure a user or a script sees has a ``kind``: a stable snake_case
word, the same in ``--json`` output, in the store and in the API. Front ends
pick one of the kinds below (or add their own, in snake_case); the
deployment layer uses the last group itself.

::

    LagunaError
     +-- DeployError          root: has ``kind`` and ``message``
          +-- Rejected        a front end refused a blueprint before anything ran
          +-- EnvironmentNotFound
          +-- Refused         a state-transition rule refused an operation
"""

from __future__ import annotations

import re
import typing as t

from laguna.errors import LagunaError, code_of, register_kinds

if t.TYPE_CHECKING:
    from laguna.deploy.result import ErrorInfo
    from laguna.source import Diagnostic

#: the model or blueprint does not load (syntax, structure, unknown file)
MODEL_INVALID = "model_invalid"
#: a class (or type) the model names is in no package given
CLASS_NOT_FOUND = "class_not_found"
#: a value breaks a property's or argument's contract
CONTRACT_VIOLATION = "contract_violation"
#: a script run by an agent exited with an error
SCRIPT_FAILED = "script_failed"
#: an agent did not answer in time
AGENT_TIMEOUT = "agent_timeout"
#: the cloud refused or failed a stack operation
CLOUD_ERROR = "cloud_error"
#: a MuranoPL exception escaped a deployment method
MURANOPL_ERROR = "muranopl_error"

#: an action names no object of the environment that has actions (deploy.actions)
OBJECT_NOT_FOUND = "object_not_found"
#: an action names a method that is not one of the object's actions
ACTION_NOT_FOUND = "action_not_found"
#: an action is given an argument it does not take, or lacks one it needs
ARGUMENT_INVALID = "argument_invalid"

#: a --set key names nothing the blueprint has
SETTING_UNKNOWN = "setting_unknown"

#: no environment of that name in the project
ENVIRONMENT_NOT_FOUND = "environment_not_found"
#: another operation holds the environment
ENVIRONMENT_BUSY = "environment_busy"
#: the operation needs something deployed and nothing is
NOT_DEPLOYED = "not_deployed"
#: the operation needs nothing deployed (forgetting an environment) and something is
STILL_DEPLOYED = "still_deployed"
#: the environment's blueprint language has no front end installed here
LANGUAGE_UNAVAILABLE = "language_unavailable"
#: the environment holds a deployment of another blueprint language
LANGUAGE_MISMATCH = "language_mismatch"
#: the environment's resources are on a cloud laguna has no driver for (an
#: environment taken over from Murano, deployed on OpenStack)
CLOUD_UNAVAILABLE = "cloud_unavailable"
#: the process running the deployment died before it finished
INTERRUPTED = "interrupted"
#: the front end raised an error it did not classify (a bug)
INTERNAL_ERROR = "internal_error"

#: every kind the deployment layer and the MuranoPL front end use, documented
KINDS = (MODEL_INVALID, CLASS_NOT_FOUND, CONTRACT_VIOLATION, SCRIPT_FAILED, AGENT_TIMEOUT,
         CLOUD_ERROR, MURANOPL_ERROR, OBJECT_NOT_FOUND, ACTION_NOT_FOUND, ARGUMENT_INVALID,
         SETTING_UNKNOWN, ENVIRONMENT_NOT_FOUND, ENVIRONMENT_BUSY, NOT_DEPLOYED,
         STILL_DEPLOYED, LANGUAGE_UNAVAILABLE, LANGUAGE_MISMATCH, CLOUD_UNAVAILABLE, INTERRUPTED,
         INTERNAL_ERROR)

#: the code of each kind (docs/ERRORS.md): a kind has one code in every
#: language (``contract_violation`` is MuranoPL's LAG-E0301 wherever it is met)
CODES: dict[str, str] = {
    MODEL_INVALID: "LAG-E1010", CLASS_NOT_FOUND: "LAG-E0302",
    CONTRACT_VIOLATION: "LAG-E0301", SCRIPT_FAILED: "LAG-E1011", AGENT_TIMEOUT: "LAG-E1012",
    CLOUD_ERROR: "LAG-E1200", MURANOPL_ERROR: "LAG-E0400", OBJECT_NOT_FOUND: "LAG-E1013",
    ACTION_NOT_FOUND: "LAG-E1014", ARGUMENT_INVALID: "LAG-E1015",
    SETTING_UNKNOWN: "LAG-E1016", ENVIRONMENT_NOT_FOUND: "LAG-E1002",
    ENVIRONMENT_BUSY: "LAG-E1017", NOT_DEPLOYED: "LAG-E1018", STILL_DEPLOYED: "LAG-E1019",
    LANGUAGE_UNAVAILABLE: "LAG-E1005", LANGUAGE_MISMATCH: "LAG-E1006",
    INTERRUPTED: "LAG-E1007", INTERNAL_ERROR: "LAG-E1008", CLOUD_UNAVAILABLE: "LAG-E1030",
}
register_kinds(CODES)

_KIND = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def check_kind(kind: str) -> str:
    """``kind`` itself when it is snake_case; a ValueError otherwise."""
    if not _KIND.match(kind):
        raise ValueError(f"error kind {kind!r} is not snake_case")
    return kind


class DeployError(LagunaError):
    """An operation on an environment could not be done; ``kind`` says why."""

    code = "LAG-E1000"

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = check_kind(kind)
        self.message = message
        # the code of its kind, when the kind has one (docs/ERRORS.md)
        self.code = code_of(kind) or self.code

    def __str__(self) -> str:
        return f"error[{self.kind}]: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind!r}, message={self.message!r})"


class Rejected(DeployError):
    """A front end refused the blueprint before anything ran; ``details`` go under
    ``error`` in results (every problem of a validation, say)."""

    code = "LAG-E1001"

    def __init__(self, kind: str, message: str,
                 details: t.Mapping[str, t.Any] | None = None) -> None:
        super().__init__(kind, message)
        self.details = dict(details or {})


def problems_of(error: DeployError | ErrorInfo, code: str | None = None) -> list[Diagnostic]:
    """The problems a command prints for a refused or failed operation: those of
    its validation (``problems`` of its details), else one: the error itself,
    of ``code`` (by default its class's) and its ``kind``, without a place."""
    from laguna.source import Diagnostic

    details: t.Mapping[str, t.Any] = getattr(error, "details", None) or {}
    listed = details.get("problems")
    if listed:
        return [Diagnostic.from_json(p) for p in listed]
    own = code_of(error.kind)
    if own is not None:
        return [Diagnostic(None, own, error.message, "error", error.kind)]
    # a kind outside the vocabulary: the problem has its code's kind
    code = code or (error.code if isinstance(error, DeployError) else DeployError.code)
    return [Diagnostic(None, code, error.message)]


def error_lines(error: DeployError | ErrorInfo, code: str | None = None) -> list[str]:
    """:func:`problems_of` the error, each in the one human line of a problem
    (:func:`laguna.source.render`, docs/ERRORS.md)."""
    from laguna.source import render

    return [render(p) for p in problems_of(error, code)]


def rejection(problems: t.Sequence[Diagnostic], kind: str | None = None) -> Rejected:
    """One Rejected for every problem of a validation (any language): ``kind``,
    else the first one's; every one in the message (one a line, without code
    and kind) and, in the one JSON shape of a problem, under ``problems``."""
    found = list(problems)
    return Rejected(kind or found[0].kind, "\n".join(p.brief() for p in found),
                    {"problems": [p.to_json() for p in found]})


class EnvironmentNotFound(DeployError):
    code = "LAG-E1002"

    def __init__(self, name: str) -> None:
        super().__init__(ENVIRONMENT_NOT_FOUND, f"no environment named {name!r}")
        self.name = name


class Refused(DeployError):
    """A state-transition rule refused the operation (busy, nothing deployed...)."""

    code = "LAG-E1003"
