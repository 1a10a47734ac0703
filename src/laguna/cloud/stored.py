"""What the drivers that keep their stacks in state files share.

:class:`StoredCloud` implements the reading half of
:class:`laguna.cloud.base.Cloud` from the stack records (``StateFiles``) and
the frame of a push: the stack's lock, recovery after a crash, then
:func:`laguna.cloud.stacks.apply` through a realm of the driver.
:class:`WaitingRealm` gives a realm Heat's wait conditions on a
``SignalServer`` the driver provides. The local cloud
(:mod:`laguna.cloud.local`) and the container cloud
(:mod:`laguna.cloud.containers`) are built on both, the ssh cloud
(:mod:`laguna.cloud.ssh`) on the first.
"""

from __future__ import annotations

import abc
import contextlib
import typing as t
from pathlib import Path

from laguna.cloud import stacks
from laguna.cloud.base import Host, StackResult
from laguna.cloud.errors import StackNotFound, WaitConditionError
from laguna.cloud.resources import Realm
from laguna.cloud.state import ResourceRecord, StackState

if t.TYPE_CHECKING:
    # laguna.cloud.local's package imports its driver, which is built on this module
    from laguna.cloud.local.signals import SignalServer
    from laguna.cloud.local.statefiles import StateFiles


class DriverRealm(Realm, t.Protocol):
    """A realm as :class:`StoredCloud` drives it through a push."""

    def settle(self) -> None: ...

    def abandon(self) -> None: ...


R = t.TypeVar("R", bound=DriverRealm)
#: a host's secret, in its run folder
SECRET_FILE = "agent.key"


class StoredCloud(abc.ABC, t.Generic[R]):
    """The state-file half of a driver; subclasses make realms and hosts."""

    files: StateFiles
    #: the driver's folder: ``stacks/`` (the records) and ``run/<stack>/<server>/``
    directory: Path

    def __init__(self, directory: Path) -> None:
        from laguna.cloud.local.statefiles import StateFiles
        self.directory = directory
        self.files = StateFiles(directory / "stacks")

    def run_dir(self, stack: str, name: str) -> Path:
        """A host's run folder: its secret, its agent's ready file."""
        return self.directory / "run" / stack / name

    def agent_secret(self, stack: str, name: str) -> str | None:
        """The secret of a host's agent; None while none runs."""
        try:
            return (self.run_dir(stack, name) / SECRET_FILE).read_text(encoding="ascii")
        except FileNotFoundError:
            return None

    # -- what a driver provides ----------------------------------------------------

    @abc.abstractmethod
    def _realm(self, state: StackState) -> R:
        """The driver's realm for one operation on the stack in ``state``."""

    def _operation(self, state: StackState) -> t.ContextManager[R]:
        """The realm of one push, open while it runs: a driver whose realm holds
        connections (the ssh cloud's sessions) closes them at its end."""
        return contextlib.nullcontext(self._realm(state))

    def _recover(self, realm: R, unfinished: bool) -> None:
        """Make what the records say runs run again; ``unfinished``: the last
        operation on the stack did not end (a crash)."""

    @abc.abstractmethod
    def _hosts(self, state: StackState) -> list[Host]:
        """The stack's servers as hosts, in creation order."""

    def _load(self, stack: str) -> StackState:
        """The stack's state for an operation (under its lock)."""
        return self.files.load(stack, cached=True) or StackState(stack)

    # -- the Cloud protocol ----------------------------------------------------------

    def push_stack(self, stack: str, template: t.Mapping[str, t.Any],
                   parameters: t.Mapping[str, t.Any] | None = None,
                   files: t.Mapping[str, str] | None = None) -> StackResult:
        with self.files.locked(stack), self._operation(self._load(stack)) as realm:
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


class WaitingRealm(abc.ABC):
    """Wait conditions for a realm: handles registered on the driver's
    :class:`SignalServer`, conditions waited for in :meth:`await_conditions`
    once the hosts that will signal run."""

    state: StackState

    def __init__(self) -> None:
        # wait conditions of this push: (condition, handle, count, timeout)
        self.waits: list[tuple[ResourceRecord, ResourceRecord, int, float]] = []

    @abc.abstractmethod
    def signal_server(self) -> SignalServer:
        """The driver's signal server, started with the first handle."""

    @abc.abstractmethod
    def existing_signal_server(self) -> SignalServer | None:
        """The signal server if one was started (forgetting starts none)."""

    def signal_url(self, handle: ResourceRecord) -> tuple[str, str]:
        return self.signal_server().register(handle.id, handle.data.get("token"))

    def forget_handle(self, handle: ResourceRecord) -> None:
        server = self.existing_signal_server()
        if server is not None:
            server.forget(handle.id)

    def await_signals(self, condition: ResourceRecord, handle: ResourceRecord,
                      count: int, timeout: float) -> None:
        # waited for in settle(), once the hosts that will signal run
        self.waits.append((condition, handle, count, timeout))

    def await_conditions(self) -> None:
        if not self.waits:
            return
        server = self.signal_server()
        while self.waits:
            condition, handle, count, timeout = self.waits.pop(0)
            signals = server.wait(handle.id, count, timeout)
            condition.data["signals"] = signals
            failed = next((s for s in signals if s["status"] == "FAILURE"), None)
            if failed is None and len(signals) >= count:
                continue
            # not complete: the next push creates it again and waits anew
            condition.status = "failed"
            if failed is not None:
                message = (f"wait condition failed: signal {failed['id']!r} on handle "
                           f"{handle.name!r} reported FAILURE"
                           + (f": {failed['reason']}" if failed.get("reason") else ""))
            else:
                message = (f"wait condition timed out after {timeout:g} s: {len(signals)} "
                           f"of {count} signal(s) reached handle {handle.name!r}")
            raise WaitConditionError(message, stack=self.state.stack, resource=condition.name,
                                     path=f"resources.{condition.name}")
