"""A front end registered by name, imported when a blueprint of its language
is first met.

The deployment layer asks every registered front end whether it recognises
a file, so registering TOSCA's and assembly's front ends used to import them
(about a quarter of a second of every command's start, half the CLI's time
before a MuranoPL deploy begins). A :class:`DeferredFrontend` answers
``recognises`` with a cheap check (:mod:`laguna.frontends.marks`) and
imports the real front end at the first call of anything else.
"""

from __future__ import annotations

import datetime
import threading
import typing as t
from pathlib import Path

from laguna.deploy.context import RunContext, StoredState
from laguna.deploy.actions import check
from laguna.deploy.frontend import (
    ActionLister,
    Blueprint,
    Frontend,
    Outcome,
    PrepareOptions,
    Summarizer,
    Watcher,
)
from laguna.deploy.result import Action


class DeferredFrontend:
    """The :class:`~laguna.deploy.frontend.Frontend` ``load()`` makes, made on first use."""

    def __init__(self, language: str, recognises: t.Callable[[Path], bool],
                 load: t.Callable[[], Frontend]) -> None:
        self.language = language
        self._recognises = recognises
        self._load = load
        self._loaded: Frontend | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> Frontend:
        """The real front end (imported and made now if it was not yet)."""
        with self._lock:
            if self._loaded is None:
                frontend = self._load()
                if frontend.language != self.language:
                    raise TypeError(f"the front end registered as {self.language!r} "
                                    f"is {frontend.language!r}")
                self._loaded = frontend
            return self._loaded

    def recognises(self, path: Path) -> bool:
        return self._recognises(path)

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        return self.loaded.prepare(path, options)

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        return self.loaded.prepare_data(data, options)

    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        return self.loaded.deploy(blueprint, context)

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        return self.loaded.action(context, object_id, method, arguments)

    def undeploy(self, context: RunContext) -> Outcome:
        return self.loaded.undeploy(context)

    def actions(self, stored: StoredState, state_dir: Path) -> t.Sequence[Action] | None:
        loaded = self.loaded
        return loaded.actions(stored, state_dir) if isinstance(loaded, ActionLister) else None

    def check_action(self, stored: StoredState, state_dir: Path, target: str, method: str,
                     arguments: t.Mapping[str, str]) -> str:
        return check(self.loaded, stored, state_dir, target, method, arguments)

    def watch(self, context: RunContext, now: datetime.datetime,
              period: float | None = None) -> Outcome:
        loaded = self.loaded
        if isinstance(loaded, Watcher):
            return loaded.watch(context, now, period)
        return Outcome(ok=True, quiet=True)   # a language that watches nothing (yet)

    def summarize(self, blueprint: Blueprint) -> t.Sequence[tuple[str, str]]:
        loaded = self.loaded
        return loaded.summarize(blueprint) if isinstance(loaded, Summarizer) else ()

    def __repr__(self) -> str:
        state = "loaded" if self._loaded is not None else "not loaded yet"
        return f"<DeferredFrontend {self.language} ({state})>"
