"""From what went wrong in a MuranoPL run to the deployment layer's error kinds.

Each message names what a user needs to fix it:

============================  ===================================================
kind                          message names
============================  ===================================================
``model_invalid``             the file (and what in it is wrong)
``class_not_found``           the class
``contract_violation``        the property (or argument) and the contract
``script_failed``             the host, the plan, the exit code and the script's stderr
``agent_timeout``             the host, the plan and the timeout
``cloud_error``               the stack, the template path and the resource
``muranopl_error``            the exception's names and text
============================  ===================================================

A load error with a place (a class file, the manifest) adds ``problems``: each
in the one JSON shape of a problem (docs/ERRORS.md), as every language's
validation gives them. ``details`` adds ``object`` and ``method`` (the failing application and the
innermost MuranoPL method), ``trace`` (the MuranoPL stack trace) and, for a
script, ``output`` (its stdout and stderr).
"""

from __future__ import annotations

import typing as t

from laguna.corelib.agent import AgentException
from laguna.deploy import errors as kinds
from laguna.deploy.result import ErrorInfo
from laguna.errors import LagunaError, SourceError, SourceErrors
from laguna.frontends.muranopl.services import AgentTimeoutError, AgentUnavailable, CloudFailure
from laguna.lang.errors import (
    ClassLoadError, ContractViolationException, MuranoPlError, NoClassFound,
)
from laguna.source import Diagnostic


def _originals(error: BaseException) -> t.Iterator[BaseException]:
    """The error, what it wraps and what caused it, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        original = getattr(current, "original", None)
        if isinstance(original, BaseException) and id(original) not in seen:
            yield original
            seen.add(id(original))
        cause = getattr(current, "cause", None)
        current = cause if isinstance(cause, BaseException) else current.__cause__


def _find(error: BaseException, kind: type[BaseException]) -> t.Any:
    for item in _originals(error):
        if isinstance(item, kind):
            return item
    return None


def problems_of(error: BaseException, base: str | None = None) -> list[Diagnostic]:
    """The problems with a place that ``error`` (or what it wraps) holds: every
    problem of a validation, or the one of an error in a file; their files under
    ``base`` (a package's folder) when given."""
    found = _find(error, SourceErrors) or _find(error, SourceError)
    if found is None:
        return []
    return [p.under(base) for p in found.as_problems() if p.span is not None]


#: how much of a plan's name an error shows (Linux.runCommand names its plan
#: "Execute " and the whole script)
PLAN_NAME_SHOWN = 60


def _short(name: str) -> str:
    first = name.splitlines()[0] if name else name
    if len(first) > PLAN_NAME_SHOWN or first != name:
        return first[:PLAN_NAME_SHOWN].rstrip() + "…"
    return first


def kind_and_message(error: BaseException, agent_hosts: t.Mapping[str, str] | None = None
                     ) -> tuple[str, str, dict[str, t.Any]]:
    """``(kind, message, details)`` for an error raised while loading or running;
    ``agent_hosts`` names the host of each agent (by host key) plans went to."""
    details: dict[str, t.Any] = {}
    missing = _find(error, NoClassFound)
    if missing is not None:
        return kinds.CLASS_NOT_FOUND, (f"class {missing.name} is not found in the core "
                                       "library, the -l packages or the environment's "
                                       "packages"), details
    violation = _find(error, ContractViolationException)
    if violation is not None:
        text = str(violation)
        where = getattr(violation, "declared_at", None)
        if where is not None:
            details["declared_at"] = str(where)
        return kinds.CONTRACT_VIOLATION, f"contract violation: {text}", details
    cloud = _find(error, CloudFailure)
    if cloud is not None:
        if cloud.resource:
            details["resource"] = cloud.resource
        return kinds.CLOUD_ERROR, f"the cloud failed: {cloud}", details
    timeout = _find(error, AgentTimeoutError)
    if timeout is not None:
        details["host"] = timeout.host
        return kinds.AGENT_TIMEOUT, str(timeout), details
    agent = _find(error, AgentException)
    if agent is not None:
        return _script_failure(agent, agent_hosts or {}, details)
    unavailable = _find(error, AgentUnavailable)
    if unavailable is not None:
        return kinds.MURANOPL_ERROR, str(unavailable), details
    load = _find(error, ClassLoadError)
    if load is not None:
        found = problems_of(load)
        if found:
            details["problems"] = [p.to_json() for p in found]
        # the error's place and message: the rendering adds the code once
        located = f"{load.span}: " if load.span is not None else ""
        return kinds.MODEL_INVALID, located + load.message, details
    if isinstance(error, MuranoPlError):
        name = error.names[0] if len(error.names) == 1 else ", ".join(error.names)
        return kinds.MURANOPL_ERROR, f"{name}: {error.message}", details
    return kinds.MURANOPL_ERROR, str(error) if isinstance(error, LagunaError) \
        else f"{type(error).__name__}: {error}", details


def _script_failure(agent: AgentException, agent_hosts: t.Mapping[str, str],
                    details: dict[str, t.Any]) -> tuple[str, str, dict[str, t.Any]]:
    info = agent.extra if isinstance(agent.extra, dict) else {}
    output = info.get("details") if isinstance(info.get("details"), dict) else {}
    where = ""
    host = agent_hosts.get(agent.agent) if agent.agent is not None else None
    if host is not None:
        plan = f" (plan {_short(agent.plan_name)!r})" if agent.plan_name else ""
        where = f" on {host}{plan}"
        details["host"] = host
    text = str(info.get("message") or agent)
    if output:
        details["output"] = {"exitCode": output.get("exitCode"),
                             "stdout": output.get("stdout"), "stderr": output.get("stderr")}
        code = output.get("exitCode")
        stderr = (output.get("stderr") or "").strip()
        message = f"a script failed{where}: {text} (exit code {code})"
        if stderr:
            message += f": {stderr}"
        return kinds.SCRIPT_FAILED, message, details
    return kinds.SCRIPT_FAILED, f"the agent reported a failure{where}: {text}", details


def error_info(error: BaseException, *, agent_hosts: t.Mapping[str, str] | None = None,
               failing_object: str | None = None) -> ErrorInfo:
    """The ErrorInfo of a failed run, with the MuranoPL trace when there is one."""
    kind, message, details = kind_and_message(error, agent_hosts)
    if failing_object is not None:
        details["object"] = failing_object
    if isinstance(error, MuranoPlError):
        if error.frames:
            innermost = error.frames[-1]
            details["method"] = (f"{innermost.class_name}.{innermost.method_name}"
                                 if innermost.class_name else str(innermost.method_name))
        details["trace"] = error.format()
    return ErrorInfo(kind, message, details)
