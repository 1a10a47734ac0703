"""The one builder of execution plans, for every front end.

:class:`PlanBuilder` builds a plan from a template and the files it names, by
the original engine's rules (MuranoPL's ``Agent.call`` templates read their
files from their package's ``Resources/scripts/``):

- v1 (no ``FormatVersion`` or 1.x): ``Scripts`` names files under ``scripts/``;
  each becomes its base64 text; a ``Stamp`` is added;
- v2: ``ID`` (32 hex digits), ``Stamp``, ``Action`` (default ``Execute``) and
  ``Files`` (default {}) are set. Each script needs an ``EntryPoint``; for
  ``Type: Application`` the entry point file is placed in ``Files`` unless a
  file of that name is there already. Each item of a script's ``Files`` is
  placed too: ``<name>`` as base64 (``BodyType: Base64``), ``name`` as text
  (``BodyType: Text``), a URL or ``{name: URL}`` as a ``Downloadable`` file;
  the script then refers to the file by its id.

:func:`script_plan` is the plan of one shell script with files beside it
(what TOSCA operations and descriptors' scripts run), built by the same rules
from files held in memory (:class:`MemoryFiles`).
"""

from __future__ import annotations

import base64
import copy
import os
import posixpath
import time
import typing as t
import urllib.parse

SCRIPTS_FOLDER = "scripts"
#: the body of a script plan: the script's exit status and output, as data
SCRIPT_BODY = ("r = run()\n"
               "return {'exitCode': r.exitCode, 'stdout': r.stdout or '', "
               "'stderr': r.stderr or ''}")
SCRIPT_OPTIONS = {"captureStdout": True, "captureStderr": True, "verifyExitcode": False}


class Files(t.Protocol):
    """The files a template names, by path (``scripts/NAME``)."""

    def read(self, name: str) -> bytes: ...

    def string(self, name: str) -> str | bytes: ...


class MemoryFiles:
    """Files held in memory, by path."""

    def __init__(self, files: t.Mapping[str, bytes | str] | None = None) -> None:
        self.files = dict(files or {})

    def read(self, name: str) -> bytes:
        if name not in self.files:
            raise FileNotFoundError(name)
        data = self.files[name]
        return data.encode("utf-8") if isinstance(data, str) else data

    def string(self, name: str) -> str:
        return self.read(name).decode("utf-8")


class PlanBuilder:
    """Builds execution plans from templates; ids and stamps are injectable."""

    def __init__(self, new_id: t.Callable[[], str] = lambda: os.urandom(16).hex(),
                 clock: t.Callable[[], float] = time.time) -> None:
        self.new_id = new_id
        self.clock = clock
        self._last_stamp = 0

    def stamp(self) -> int:
        """Ten-thousandths of a second since the epoch, strictly increasing."""
        value = int(self.clock() * 10000)
        if value <= self._last_stamp:
            value = self._last_stamp + 1
        self._last_stamp = value
        return value

    def build(self, template: t.Any, files: Files) -> dict[str, t.Any]:
        plan = copy.deepcopy(template)
        if not isinstance(plan, dict):
            raise ValueError("Incorrect execution plan")
        version = plan.get("FormatVersion")
        if not version or str(version).startswith("1."):
            return self._v1(plan, files)
        return self._v2(plan, files)

    def _v1(self, plan: dict[str, t.Any], files: Files) -> dict[str, t.Any]:
        plan["Scripts"] = [
            base64.b64encode(files.read(posixpath.join(SCRIPTS_FOLDER, name))).decode("ascii")
            for name in plan.get("Scripts", [])]
        plan["Stamp"] = self.stamp()
        return plan

    def _v2(self, plan: dict[str, t.Any], files: Files) -> dict[str, t.Any]:
        plan["ID"] = self.new_id()
        plan["Stamp"] = self.stamp()
        plan.setdefault("Action", "Execute")
        plan.setdefault("Files", {})
        placed = {description["Name"]: file_id
                  for file_id, description in plan["Files"].items()}
        for name, script in (plan.get("Scripts") or {}).items():
            if "EntryPoint" not in script:
                raise ValueError(f"No entry point in script {name}")
            if script.get("Type") == "Application":
                entry = script["EntryPoint"]
                script["EntryPoint"] = (placed[entry] if entry in placed
                                        else self._place(entry, plan, files, placed))
            for index, item in enumerate(script.get("Files") or []):
                if _file_name(item) in placed:
                    script["Files"][index] = placed[_file_name(item)]
                else:
                    script["Files"][index] = self._place(item, plan, files, placed)
        return plan

    def _place(self, item: t.Any, plan: dict[str, t.Any], files: Files,
               placed: dict[str, str]) -> str:
        file_id = self.new_id()
        name = _file_name(item)
        value = _file_value(item)
        if _is_url(value):
            plan["Files"][file_id] = {"Name": name, "URL": value, "Type": "Downloadable"}
        elif _is_base64(value):
            body = files.read(posixpath.join(SCRIPTS_FOLDER, value[1:-1]))
            plan["Files"][file_id] = {"Name": name, "BodyType": "Base64",
                                      "Body": base64.b64encode(body).decode("ascii") + "\n"}
        else:
            plan["Files"][file_id] = {
                "Name": name, "BodyType": "Text",
                "Body": files.string(posixpath.join(SCRIPTS_FOLDER, value))}
        placed[name] = file_id
        return file_id


def _file_value(item: t.Any) -> str:
    return str(next(iter(item.values()))) if isinstance(item, dict) else str(item)


def _is_url(value: str) -> bool:
    parts = urllib.parse.urlsplit(value)
    return bool(parts.scheme and parts.netloc)


def _is_base64(value: str) -> bool:
    return value.startswith("<") and value.endswith(">")


def _file_name(item: t.Any) -> str:
    name = str(next(iter(item))) if isinstance(item, dict) else str(item)
    if _is_url(name):
        return name[name.rindex("/") + 1:]
    if _is_base64(name):
        return name[1:-1]
    return name


def script_plan(name: str, script: str, files: t.Mapping[str, bytes] | None = None, *,
                entry: str = "script.sh",
                builder: PlanBuilder | None = None) -> dict[str, t.Any]:
    """The v2 plan that runs ``script`` (shell text, file ``entry``) with ``sh`` in
    a fresh folder holding ``files`` (name -> content, base64 on the way) beside
    it; its result's ``Body`` is ``{exitCode, stdout, stderr}``."""
    names = list(files or {})
    if entry in names:
        raise ValueError(f"a file beside the script is called {entry!r}, as the script is")
    template = {"FormatVersion": "2.1.0", "Version": "1.0.0", "Name": name,
                "Parameters": {}, "Body": SCRIPT_BODY,
                "Scripts": {"run": {"Type": "Application", "Version": "1.0.0",
                                    "EntryPoint": entry,
                                    "Files": [f"<{n}>" for n in names],
                                    "Options": dict(SCRIPT_OPTIONS)}}}
    memory = MemoryFiles({posixpath.join(SCRIPTS_FOLDER, entry): script,
                          **{posixpath.join(SCRIPTS_FOLDER, n): data
                             for n, data in (files or {}).items()}})
    return (builder or PlanBuilder()).build(template, memory)
