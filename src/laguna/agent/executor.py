"""Running a plan on the host: files, scripts, Body, and the result document.

``PlanExecutor.execute`` never raises for a plan's sake; it returns an
``Outcome`` whose ``status`` tells the server what to answer:

* ``done``: the plan ran; ``result`` is a success or an error result (a script
  failed under verifyExitcode: ErrorCode 100, Message ``Script NAME returned
  error code``, AdditionalInfo ``{exitCode, stdout, stderr}``, as murano-agent).
* ``rejected``: the plan was refused before anything ran (HTTP 400).
* ``timeout``: the plan's time ran out; the running script was killed (HTTP 504).

One plan runs at a time, as murano-agent's queue ran them.
"""

from __future__ import annotations

import json
import re
import shlex
import stat
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from laguna.agent.body import ScriptFunction
from laguna.agent.errors import PlanError, PlanFailed, PlanTimeout, ScriptFailed
from laguna.agent.plan import PlanV1, PlanV2, Script, is_v1, parse_plan, plan_id_of
from laguna.agent.process import Completed, run_process
from laguna.agent.protocol import SCRIPT_FAILED
from laguna.agent.results import (
    ResultFactory,
    v1_command_ok,
    v1_exception,
    v1_result,
)
from laguna.agent.tracking import Tracker
from laguna.agent.workspace import PlanWorkspace
from laguna.privacy import write_private

# Sources every v1 script into one shell, then runs the command with its arguments.
_V1_RUNNER = '. "$1"; shift; "$@"'


class Outcome(NamedTuple):
    status: Literal["done", "rejected", "timeout"]
    result: dict[str, Any]
    plan_id: str | None
    message: str | None = None
    error_code: int | None = None
    seconds: float | None = None


class PlanExecutor:
    """Runs plans under ``root`` (the host's directory) with the scripts' environment ``env``."""

    def __init__(self, root: Path, env: Mapping[str, str],
                 results: ResultFactory | None = None,
                 tracker: Tracker | None = None) -> None:
        self.root = root
        self.env = dict(env)
        self.results = results or ResultFactory()
        self.tracker = tracker or Tracker(root)
        self._lock = threading.Lock()

    def execute(self, raw: Any, timeout: float, component: str | None = None,
                files: tuple[str, ...] = ()) -> Outcome:
        """Run a plan; with ``component``, what it leaves on the host is recorded
        as that component's (``tracking``), with the paths ``files`` beside."""
        deadline = time.monotonic() + timeout
        v1 = isinstance(raw, dict) and is_v1(raw)
        try:
            plan = parse_plan(raw, self.results.new_id)
        except PlanError as exc:
            result = self._error(plan_id_of(raw), v1, exc)
            return Outcome("rejected", result, plan_id_of(raw), exc.message, exc.error_code)
        if not self._lock.acquire(timeout=timeout):
            message = f"The agent was busy with another plan for {timeout:g} seconds"
            return self._timed_out(plan.plan_id, v1, PlanTimeout(message, timeout))
        try:
            if component is None:
                return self._run(plan, v1, deadline, timeout, self.env)
            before = self.tracker.listing()
            try:
                return self._run(plan, v1, deadline, timeout,
                                 {**self.env, **self.tracker.environment(component)})
            finally:
                # whatever the plan did, even failed: what it left is the component's
                try:
                    self.tracker.record(component, before, files)
                except OSError as error:    # drift is a lookout; the plan's result stands
                    sys.stderr.write(f"laguna-agent: what the plan of {component} left "
                                     f"could not be recorded: {error}\n")
        finally:
            self._lock.release()

    def drift(self) -> dict[str, Any]:
        """What each component's plans left here and what of it is gone (``tracking``)."""
        return self.tracker.check()

    def _run(self, plan: PlanV1 | PlanV2, v1: bool, deadline: float,
             timeout: float, env: Mapping[str, str]) -> Outcome:
        workspace: PlanWorkspace | None = None
        try:
            workspace = PlanWorkspace(self.root, plan.plan_id)
            if isinstance(plan, PlanV1):
                outcome = Outcome(
                    "done", self._run_v1(plan, workspace, deadline, timeout, env), plan.plan_id)
            else:
                outcome = Outcome(
                    "done", self._run_v2(plan, workspace, deadline, timeout, env), plan.plan_id)
        except PlanTimeout as exc:
            outcome = self._timed_out(plan.plan_id, v1, exc)
        except Exception as exc:  # the agent answers whatever happens on the host
            outcome = Outcome("done", self._error(plan.plan_id, v1, exc), plan.plan_id)
        if workspace is not None:
            workspace.save_result(outcome.result)
        return outcome

    def _timed_out(self, plan_id: str, v1: bool, exc: PlanTimeout) -> Outcome:
        return Outcome("timeout", self._error(plan_id, v1, exc), plan_id, exc.message,
                       exc.error_code, exc.seconds)

    def _error(self, plan_id: str | None, v1: bool, exc: Exception) -> dict[str, Any]:
        """The error result of the plan's format for ``exc``."""
        if isinstance(exc, PlanError | PlanFailed):
            code, message = exc.error_code, exc.message
        else:
            code, message = 1, f"{type(exc).__name__}: {exc}"
        info = exc.additional_info if isinstance(exc, PlanFailed) else None
        if v1:
            return v1_exception(f"laguna.agent.{type(exc).__name__}", message, None, info)
        return self.results.error(plan_id, code, message, info)

    # -- v2 -----------------------------------------------------------------

    def _run_v2(self, plan: PlanV2, workspace: PlanWorkspace, deadline: float,
                timeout: float, env: Mapping[str, str]) -> dict[str, Any]:
        def bind(script: Script) -> ScriptFunction:
            def run(commandline: str, stdin: str | None) -> dict[str, Any]:
                return self._run_application(plan, script, workspace, commandline, stdin,
                                             deadline, timeout, env)
            return ScriptFunction(script.name, run)

        functions = {name: bind(script) for name, script in plan.scripts.items()}
        try:
            value = plan.body.run(functions, plan.parameters)
            json.dumps(value)
        except PlanTimeout:
            raise
        except PlanFailed as exc:
            return self._error(plan.plan_id, False, exc)
        except (TypeError, ValueError) as exc:
            return self.results.error(plan.plan_id, 1, f"Body returned a value that is "
                                      f"not JSON: {exc}")
        return self.results.success(plan.plan_id, value)

    def _run_application(self, plan: PlanV2, script: Script, workspace: PlanWorkspace,
                         commandline: str, stdin: str | None, deadline: float,
                         timeout: float, env: Mapping[str, str]) -> dict[str, Any]:
        for file_id in script.files:
            self._place(plan, file_id, script.name, workspace)
        entry = self._place(plan, script.entry_point, script.name, workspace)
        entry.chmod(stat.S_IEXEC | stat.S_IREAD)
        # murano-agent ran `./"<entry point>" <commandline>` through the shell, so the
        # command line is shell text (quoting included) and the file runs by its #! line.
        done = run_process(
            ["/bin/sh", "-c", f"./{shlex.quote(entry.name)} {commandline}"], cwd=entry.parent,
            env=env, stdin=None if stdin is None else stdin.encode("utf-8"),
            deadline=deadline, log_prefix=workspace.log_prefix(script.name))
        options = script.options
        result = {
            "exitCode": done.exit_code,
            "stdout": _stripped(done.stdout) if options.capture_stdout else None,
            "stderr": _stripped(done.stderr) if options.capture_stderr else None,
        }
        if done.timed_out:
            raise PlanTimeout(f"Script {script.name} did not finish within {timeout:g} "
                              "seconds and was killed", timeout, result)
        if options.verify_exitcode and done.exit_code != 0:
            raise ScriptFailed(f"Script {script.name} returned error code", SCRIPT_FAILED,
                               result)
        return result

    @staticmethod
    def _place(plan: PlanV2, file_id: str, folder: str, workspace: PlanWorkspace) -> Path:
        plan_file = plan.files[file_id]
        body = workspace.write_file(file_id, plan_file.content)
        return workspace.link(folder, plan_file.name, body)

    # -- v1 -----------------------------------------------------------------

    def _run_v1(self, plan: PlanV1, workspace: PlanWorkspace, deadline: float,
                timeout: float, env: Mapping[str, str]) -> dict[str, Any]:
        scripts = workspace.path / "scripts.sh"
        write_private(scripts, b"\n".join(plan.scripts) + b"\n")
        commands: list[dict[str, Any]] = []
        for command in plan.commands:
            done = run_process(
                ["/bin/sh", "-c", _V1_RUNNER, "laguna-agent", str(scripts), command.name,
                 *(_argument(value) for value in command.arguments.values())],
                cwd=workspace.path, env=env, stdin=None, deadline=deadline,
                log_prefix=workspace.log_prefix(re.sub(r"[^\w.-]", "_", command.name)))
            if done.timed_out:
                raise PlanTimeout(f"Command {command.name} did not finish within "
                                  f"{timeout:g} seconds and was killed", timeout,
                                  _details(done))
            if done.exit_code != 0:
                commands.append(v1_exception(
                    "laguna.agent.CommandFailed",
                    f"Command {command.name} returned exit code {done.exit_code}",
                    command.name, _details(done)))
                break
            commands.append(v1_command_ok(done.stdout.strip().splitlines()))
        return v1_result(commands)


def _stripped(text: str) -> str | None:
    return text.strip() or None


def _details(done: Completed) -> dict[str, Any]:
    return {"exitCode": done.exit_code, "stdout": _stripped(done.stdout),
            "stderr": _stripped(done.stderr)}


def _argument(value: Any) -> str:
    """A v1 argument as a shell word: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)
