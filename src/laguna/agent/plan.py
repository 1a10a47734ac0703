"""Execution plans as murano-agent received them, checked and turned into values.

Two formats exist (docs/AGENT.md):

* v2 (``FormatVersion`` 2.0.0 to 2.2.0): ``Files`` by id (``Name``,
  ``BodyType`` Text or Base64, ``Body``), ``Scripts`` by name (``Type``,
  ``EntryPoint`` = a file id, ``Files`` = more file ids, ``Options``),
  ``Parameters`` and a ``Body`` that calls the scripts.
* v1 (no ``FormatVersion`` or 1.x, the Windows agent's format): ``Scripts`` is a
  list of base64 script texts, ``Commands`` a list of ``{Name, Arguments}``.
  A 1.x plan whose ``Scripts`` is a map of named scripts is the Linux agent's
  form (what ``Agent.callRaw`` sends as it is): murano-agent ran every plan it
  received that way, whatever its FormatVersion, so it is read as above.

``parse_plan`` checks everything before anything runs and raises ``PlanError``
with murano-agent's error code (2 malformed, 9 unsupported version).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from laguna.agent.body import Body
from laguna.agent.errors import PlanError
from laguna.agent.protocol import FORMAT_UNSUPPORTED
from laguna.agent.results import hex_id

MAX_FORMAT = (2, 2, 0)
KNOWN_SCRIPT_TYPES = ("Application", "Chef", "Puppet")
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")

# The agent's values (here, Body, Completed, Outcome) are NamedTuples rather
# than dataclasses: each host's agent imports them at its first plan, and
# dataclasses with inspect, plus a millisecond a class, cost it ~20 ms.


class PlanFile(NamedTuple):
    """One entry of a v2 plan's ``Files``: its bytes and the relative name it gets."""

    file_id: str
    name: str
    content: bytes


class ScriptOptions(NamedTuple):
    capture_stdout: bool = True
    capture_stderr: bool = True
    verify_exitcode: bool = True


class Script(NamedTuple):
    """One entry of a v2 plan's ``Scripts`` (only ``Type: Application`` runs)."""

    name: str
    entry_point: str
    files: tuple[str, ...]
    options: ScriptOptions


class PlanV2(NamedTuple):
    plan_id: str
    format_version: str
    files: dict[str, PlanFile]
    scripts: dict[str, Script]
    parameters: dict[str, Any]
    body: Body


class Command(NamedTuple):
    """One entry of a v1 plan's ``Commands``: a command or function and its arguments."""

    name: str
    arguments: dict[str, Any]


class PlanV1(NamedTuple):
    plan_id: str
    scripts: tuple[bytes, ...]
    commands: tuple[Command, ...]


Plan = PlanV1 | PlanV2


def plan_id_of(raw: Any) -> str | None:
    """The ``ID`` of a raw plan when it has a usable one (for error results)."""
    plan_id = raw.get("ID") if isinstance(raw, dict) else None
    return plan_id if isinstance(plan_id, str) else None


def is_v1(raw: dict[str, Any]) -> bool:
    """What the original engine decided: no FormatVersion, or 1.x, is the v1 format."""
    version = raw.get("FormatVersion")
    return not version or (isinstance(version, str) and version.startswith("1."))


def parse_plan(raw: Any, new_id: Callable[[], str] = hex_id) -> Plan:
    """Check a plan as received (JSON) and return it as a ``PlanV1`` or ``PlanV2``."""
    if not isinstance(raw, dict):
        raise PlanError("The execution plan is not a JSON object")
    plan_id = raw.get("ID")
    if plan_id is None:
        plan_id = new_id()
    if not isinstance(plan_id, str):
        raise PlanError("ID of the execution plan is not a string")
    _check_plain_name(plan_id, "Plan ID")
    if is_v1(raw) and not isinstance(raw.get("Scripts"), dict):
        return _parse_v1(raw, plan_id)
    return _parse_v2(raw, plan_id)


def _parse_version(text: Any) -> tuple[int, int, int]:
    match = _VERSION.match(text) if isinstance(text, str) else None
    if match is None:
        raise PlanError(f"Invalid FormatVersion {text!r}", FORMAT_UNSUPPORTED)
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def _parse_v2(raw: dict[str, Any], plan_id: str) -> PlanV2:
    # murano-agent's own default: a plan without a FormatVersion is 1.0.0
    format_version = raw.get("FormatVersion") or "1.0.0"
    version = _parse_version(format_version)
    if version > MAX_FORMAT:
        raise PlanError(
            "Unsupported format version {0} (I support versions <=2.2.0)".format(
                ".".join(map(str, version))), FORMAT_UNSUPPORTED)
    for attr in ("Scripts", "Files", "Options"):
        if attr in raw and not isinstance(raw[attr], dict):
            raise PlanError(f"{attr} is not a dictionary")
    if "Scripts" not in raw:
        raise PlanError("Scripts is not in the execution plan")
    files = {key: _parse_file(key, value) for key, value in (raw.get("Files") or {}).items()}
    scripts = {name: _parse_script(name, value, files)
               for name, value in raw["Scripts"].items()}
    parameters = raw.get("Parameters") or {}
    if not isinstance(parameters, dict):
        raise PlanError("Parameters is not a dictionary")
    if "Body" not in raw:
        raise PlanError("Body is not in the execution plan")
    if not isinstance(raw["Body"], str):
        raise PlanError("Body is not a string")
    return PlanV2(plan_id=plan_id, format_version=format_version, files=files,
                  scripts=scripts, parameters=parameters, body=Body.compile(raw["Body"]))


def _parse_file(key: str, value: Any) -> PlanFile:
    _check_plain_name(key, "File id")
    if not isinstance(value, dict):
        raise PlanError(f"Invalid file {key}: {value!r}")
    if "Type" in value or "URL" in value:
        raise PlanError(f"File {key} is {value.get('Type', 'Downloadable')} "
                        f"({value.get('URL')}); laguna-agent does not download files")
    for attr in ("BodyType", "Body", "Name"):
        if attr not in value:
            raise PlanError(f"Incorrect {attr} entry in file {key}")
    name, body, body_type = value["Name"], value["Body"], value["BodyType"]
    if not isinstance(name, str):
        raise PlanError(f"Incorrect Name entry in file {key}")
    _check_relative_path(name, key)
    if not isinstance(body, str):
        raise PlanError(f"Incorrect Body entry in file {key}")
    if body_type == "Text":
        return PlanFile(key, name, body.encode("utf-8"))
    if body_type == "Base64":
        try:
            content = base64.b64decode("".join(body.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise PlanError(f"Body of file {key} is not valid Base64: {exc}") from exc
        return PlanFile(key, name, content)
    raise PlanError(f"Incorrect BodyType in file {key}")


def _parse_script(name: str, value: Any, files: dict[str, PlanFile]) -> Script:
    _check_plain_name(name, "Script name")
    if not isinstance(value, dict):
        raise PlanError(f"Script {name} is not a dictionary")
    for attr in ("Type", "EntryPoint"):
        if not isinstance(value.get(attr), str):
            raise PlanError(f"Incorrect {attr} entry in script {name}")
    script_type = value["Type"]
    if script_type not in KNOWN_SCRIPT_TYPES:
        raise PlanError(f"Script has not a valid type {script_type}")
    if script_type != "Application":
        raise PlanError(f"Script {name} has Type {script_type}; laguna-agent runs "
                        "only Type Application scripts")
    if value["EntryPoint"] not in files:
        raise PlanError(f"Script {name} misses entry point {value['EntryPoint']}")
    extra = value.get("Files") or []
    if not isinstance(extra, list):
        raise PlanError(f"Files of script {name} is not a list")
    for file_id in extra:
        if not isinstance(file_id, str) or file_id not in files:
            raise PlanError(f"Script {name} misses file {file_id}")
    options = value.get("Options") or {}
    if not isinstance(options, dict):
        raise PlanError(f"Options of script {name} is not a dictionary")
    return Script(
        name=name, entry_point=value["EntryPoint"], files=tuple(extra),
        options=ScriptOptions(
            capture_stdout=bool(options.get("captureStdout", True)),
            capture_stderr=bool(options.get("captureStderr", True)),
            verify_exitcode=bool(options.get("verifyExitcode", True))))


def _parse_v1(raw: dict[str, Any], plan_id: str) -> PlanV1:
    scripts = raw.get("Scripts") or []
    if not isinstance(scripts, list):
        raise PlanError("Scripts of a v1 plan is not a list")
    decoded = []
    for index, text in enumerate(scripts):
        if not isinstance(text, str):
            raise PlanError(f"Script #{index} of a v1 plan is not a string")
        try:
            decoded.append(base64.b64decode("".join(text.split()), validate=True))
        except (binascii.Error, ValueError) as exc:
            raise PlanError(f"Script #{index} of a v1 plan is not valid Base64: {exc}") from exc
    commands = raw.get("Commands") or []
    if not isinstance(commands, list):
        raise PlanError("Commands of a v1 plan is not a list")
    return PlanV1(plan_id=plan_id, scripts=tuple(decoded),
                  commands=tuple(_parse_command(index, c) for index, c in enumerate(commands)))


def _parse_command(index: int, value: Any) -> Command:
    if not isinstance(value, dict) or not isinstance(value.get("Name"), str):
        raise PlanError(f"Command #{index} of a v1 plan has no Name")
    arguments = value.get("Arguments") or {}
    if not isinstance(arguments, dict):
        raise PlanError(f"Arguments of command {value['Name']} is not a dictionary")
    return Command(value["Name"], arguments)


def _check_plain_name(name: str, what: str) -> None:
    if not name or "/" in name or "\\" in name or name in (".", "..") or "\0" in name:
        raise PlanError(f"{what} {name!r} is not a plain file name")


def _check_relative_path(name: str, file_id: str) -> None:
    parts = name.split("/")
    if (not name or name.startswith("/") or "\0" in name
            or any(part in ("..", "") for part in parts) or parts == ["."]):
        raise PlanError(f"File {file_id} has name {name!r}, which leaves the plan directory")
