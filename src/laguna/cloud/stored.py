"""What the drivers that keep their stacks in state files share (the local
cloud, the ssh cloud): a push under the stack's lock that first recovers what
an earlier operation left, applies the template through the driver's realm
and saves; and the reads of the Cloud protocol."""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.cloud import stacks
from laguna.cloud.base import Host, StackResult
from laguna.cloud.errors import StackNotFound
from laguna.cloud.resources import Realm
from laguna.cloud.state import StackState

if t.TYPE_CHECKING:
    # laguna.cloud.local's package imports the local driver, which imports this
    from laguna.cloud.local.statefiles import StateFiles


class StoredRealm(Realm, t.Protocol):
    """A realm for one operation of a stored cloud."""

    def settle(self) -> None:
        """Wait for what the resources created in this push started."""
        ...

    def abandon(self) -> None:
        """The push failed: forget (or undo) what was started and not waited for."""
        ...


R = t.TypeVar("R", bound=StoredRealm)
#: a host's secret, in its run folder (``run/<stack>/<server>/``)
SECRET_FILE = "agent.key"


class StoredCloud(t.Generic[R]):
    """A cloud whose stacks live in :class:`StateFiles`; a driver gives
    :meth:`_realm`, :meth:`_recover` and :meth:`_hosts` (and ``delete_stack``)."""

    files: StateFiles
    directory: Path             # the driver's state folder

    def _realm(self, state: StackState) -> t.ContextManager[R]:
        raise NotImplementedError

    def _recover(self, realm: R, unfinished: bool) -> None:
        """Repair what an earlier operation left; ``unfinished``: it never ended."""
        raise NotImplementedError

    def _hosts(self, state: StackState) -> list[Host]:
        raise NotImplementedError

    def run_dir(self, stack: str, name: str) -> Path:
        return self.directory / "run" / stack / name

    def agent_secret(self, stack: str, name: str) -> str | None:
        """The secret of a host's agent, as this side keeps it; None while none runs."""
        try:
            return (self.run_dir(stack, name) / SECRET_FILE).read_text(encoding="ascii")
        except FileNotFoundError:
            return None

    def _load(self, stack: str) -> StackState:
        """The stack's state for an operation (under its lock)."""
        return self.files.load(stack, cached=True) or StackState(stack)

    def push_stack(self, stack: str, template: t.Mapping[str, t.Any],
                   parameters: t.Mapping[str, t.Any] | None = None,
                   files: t.Mapping[str, str] | None = None) -> StackResult:
        with self.files.locked(stack), self._realm(self._load(stack)) as realm:
            unfinished = self.files.begin(stack)
            try:
                self._recover(realm, unfinished)
                # saves the records at its end (and before it starts any agent)
                diff = stacks.apply(realm, template, parameters or {}, files or {},
                                    settle=realm.settle)
            except BaseException:
                realm.abandon()
                if realm.state.records or self.files.path(stack).exists():
                    realm.save()
                raise
            # Left in place when the push failed: the next operation looks for leftovers.
            self.files.end(stack)
            return StackResult(stack, dict(realm.state.outputs),
                               tuple(self._hosts(realm.state)), diff)

    def get_template(self, stack: str) -> dict[str, t.Any] | None:
        state = self.files.load(stack)
        return state.template if state is not None else None

    def stack_outputs(self, stack: str) -> dict[str, t.Any]:
        state = self.files.load(stack)
        if state is None:
            raise StackNotFound("no such stack", stack=stack)
        return state.outputs

    def stacks(self) -> list[str]:
        return self.files.stacks()

    def hosts(self, stack: str) -> list[Host]:
        state = self.files.load(stack)
        return self._hosts(state) if state is not None else []

    def find_host(self, stack: str, name: str) -> Host | None:
        return next((h for h in self.hosts(stack) if name in (h.name, h.server_name)),
                    None)
