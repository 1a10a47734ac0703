"""The directory of one plan on the host: ``ROOT/agent/plans/<plan id>/``.

Layout, as murano-agent's files manager had it: each file body is written once
under ``files/<file id>``; each script gets a folder ``<script name>/`` holding
symbolic links named after the files' ``Name`` (subfolders allowed) to those
bodies, and runs there. Scripts such as io.murano's ``putFile.sh`` rely on the
links (``mv "$(readlink destinationFile)" "$TARGET"``). Script output is kept
under ``logs/`` and the result in ``result.json``; the directory stays after the
plan (murano-agent removed it) so that a host can be inspected; the cloud
removes it with the host.

Plans carry an environment's secrets, so everything here is its owner's
alone (folders 0700, files 0600) whatever the agent's umask, which its
scripts inherit unchanged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from laguna.agent.errors import PlanError
from laguna.privacy import write_private


class PlanWorkspace:
    def __init__(self, root: Path, plan_id: str) -> None:
        self.path = root / "agent" / "plans" / plan_id
        if self.path.exists():
            shutil.rmtree(self.path)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.path.mkdir(mode=0o700)
        (self.path / "files").mkdir(mode=0o700)
        (self.path / "logs").mkdir(mode=0o700)
        self._calls = 0

    def write_file(self, file_id: str, content: bytes) -> Path:
        """Write a file body byte for byte (once per id) and return its path."""
        target = self.path / "files" / file_id
        if not target.exists():
            write_private(target, content)
        return target

    def link(self, folder: str, name: str, target: Path) -> Path:
        """Make ``<folder>/<name>`` a link to ``target``; ``name`` stays inside ``folder``."""
        base = (self.path / folder).resolve()
        link = base / name
        link.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # plan.py already refuses `..` and absolute names; this catches the rest
        if not link.parent.resolve().is_relative_to(base):
            raise PlanError(f"File name {name!r} leaves the plan directory")
        if not link.is_symlink():
            link.symlink_to(target)
        return link

    def log_prefix(self, what: str) -> Path:
        """``logs/<n>-<what>``: one prefix per call, numbered in order."""
        self._calls += 1
        return self.path / "logs" / f"{self._calls:03d}-{what}"

    def save_result(self, result: dict[str, Any]) -> None:
        write_private(self.path / "result.json",
                      json.dumps(result, indent=2, default=str).encode())
