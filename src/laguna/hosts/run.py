"""Running a script, and placing a file, on a host: the one way every front end does it.

A :class:`Machine` is a host of a cloud with the transport to its agent.
:func:`run_script` sends the plan of one shell script (:func:`~.plans.script_plan`):
``env`` exported first, then the script, in a fresh folder on the host that
holds ``files`` beside it; the answer is the script's exit status and
output. :func:`put_file` writes one file at a path of the host (relative
paths: from the host's home).
"""

from __future__ import annotations

import dataclasses
import shlex
import typing as t

from laguna.cloud.base import Host
from laguna.hosts.drift import current_track
from laguna.hosts.errors import ScriptError
from laguna.hosts.plans import PlanBuilder, script_plan

if t.TYPE_CHECKING:
    from laguna.agent.transport import AgentTransport

#: how long a script may run when the caller says nothing, in seconds
DEFAULT_TIMEOUT = 600.0


@dataclasses.dataclass(frozen=True)
class ScriptResult:
    """What a script did on its host."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


@dataclasses.dataclass
class Machine:
    """A host and the transport to its agent."""

    host: Host
    agent: AgentTransport

    @property
    def name(self) -> str:
        return self.host.server_name

    @property
    def address(self) -> str:
        """The address its services bind to ("" when it has none: dry runs)."""
        return self.host.addresses[0] if self.host.addresses else ""

    def execute(self, plan: dict[str, t.Any], timeout: float,
                writes: t.Sequence[str] = ()) -> dict[str, t.Any]:
        """A built plan, as the agent answers it (murano-agent's result document);
        what it leaves on the host is the current component's (:mod:`.drift`),
        with the paths it ``writes``."""
        return self.agent.execute(plan, timeout, track=current_track(writes))

    def close(self) -> None:
        close = getattr(self.agent, "close", None)
        if close is not None:
            close()


def exports(env: t.Mapping[str, str]) -> str:
    """``export NAME=VALUE`` lines of ``env`` (names that are no shell names left out)."""
    return "".join(f"export {key}={shlex.quote(value)}\n"
                   for key, value in env.items() if key.isidentifier())


def run_script(machine: Machine, script: str, env: t.Mapping[str, str] | None = None,
               files: t.Mapping[str, bytes] | None = None, *,
               timeout: float = DEFAULT_TIMEOUT, name: str = "script",
               builder: PlanBuilder | None = None,
               writes: t.Sequence[str] = ()) -> ScriptResult:
    """Run ``script`` (shell) on ``machine`` with ``env`` exported and ``files``
    (name -> content) beside it. A non-zero exit status is the result's; the
    agent's own failure (a refused or failed plan) is ScriptError; the
    transport's errors (AgentTimeout, AgentUnreachable...) pass through."""
    plan = script_plan(name, exports(env or {}) + script, files, builder=builder)
    result = machine.execute(plan, timeout, writes)
    body = result.get("Body") if isinstance(result, dict) else None
    if result.get("ErrorCode") not in (0, None) or not isinstance(body, dict):
        raise ScriptError(f"the agent of {machine.name} failed plan {name!r}: {body!r}",
                          stack=machine.host.stack, resource=machine.host.name)
    return ScriptResult(int(body.get("exitCode", 1)), str(body.get("stdout") or ""),
                        str(body.get("stderr") or ""))


def put_file(machine: Machine, path: str, data: bytes, *, mode: int | None = None,
             timeout: float = DEFAULT_TIMEOUT) -> None:
    """Write ``data`` at ``path`` on ``machine`` (folders made; relative to the
    host's home); ScriptError when it cannot be written."""
    quoted = shlex.quote(path)
    script = (f"dir=\"$(pwd)\"\ncd \"$HOME\" || exit 1\n"
              f"mkdir -p \"$(dirname {quoted})\" && cp \"$dir/content\" {quoted}"
              + (f" && chmod {mode:o} {quoted}" if mode is not None else "") + "\n")
    result = run_script(machine, script, files={"content": data}, timeout=timeout,
                        name=f"put {path}", writes=(path,))
    if not result.ok:
        raise ScriptError(f"{path} could not be written on {machine.name}: "
                          f"{(result.stderr or result.stdout).strip()}",
                          stack=machine.host.stack, resource=machine.host.name)
