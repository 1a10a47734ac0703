"""One JSON file per stack, replaced atomically, changed under an fcntl lock."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
import typing as t
from pathlib import Path

from laguna.cloud.errors import CloudError
from laguna.cloud.state import StackState

STACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


class StateFiles:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def path(self, stack: str) -> Path:
        if not STACK_NAME.match(stack):
            raise CloudError("a stack name is letters, digits, '_', '.' and '-'",
                             stack=stack)
        return self.directory / f"{stack}.json"

    @contextlib.contextmanager
    def locked(self, stack: str) -> t.Iterator[None]:
        with open(self.path(stack).with_suffix(".lock"), "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            yield

    def begin(self, stack: str) -> bool:
        """Mark an operation on ``stack`` as running; True if the last one never
        ended (the engine died), so that the caller looks for what it left."""
        busy = self.path(stack).with_suffix(".busy")
        unfinished = busy.exists()
        busy.touch()
        return unfinished

    def end(self, stack: str) -> None:
        self.path(stack).with_suffix(".busy").unlink(missing_ok=True)

    def load(self, stack: str) -> StackState | None:
        try:
            data = json.loads(self.path(stack).read_text())
        except FileNotFoundError:
            return None
        return StackState.from_json(data)

    def save(self, state: StackState) -> None:
        path = self.path(state.stack)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{state.stack}.")
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(state.to_json(), separators=(",", ":")))
        os.replace(tmp, path)

    def remove(self, stack: str) -> None:
        # The lock file stays: another process may be waiting on it.
        self.path(stack).unlink(missing_ok=True)

    def stacks(self) -> list[str]:
        return sorted(p.stem for p in self.directory.glob("*.json"))
