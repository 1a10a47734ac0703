"""Which cloud an environment's servers live on, kept with the cloud's state.

``laguna deploy --cloud containers`` chooses the containers cloud for the
environment; ``undeploy``, ``action`` and a redeploy find it again without the
flag. The choice of each environment is kept in
``<cloud state>/environments/<environment id>.json`` (the kind, the ssh
cloud's inventory file, and the stacks the environment holds there, which
:class:`TrackedCloud` records as they are pushed and deleted), as the local
cloud keeps its isolation beside its stacks (:mod:`laguna.cloud.local.settings`).
Without a kept choice an environment is on the local cloud.

Changing the kind while the environment holds stacks would strand them on the
old cloud (nothing would ever delete them), so it is refused until the
environment is undeployed.

The kind is the environment's default: a front end may put some servers on
another cloud (TOSCA's per-node locations). Each such stack is recorded with
the kind of the cloud that holds it (``elsewhere``), so that a drift check, an
undeploy or a switch of the default finds every server through its own cloud.
The ssh cloud's inventory is kept whatever the default kind: a server placed on
the ssh cloud needs it as much as an environment deployed there.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import typing as t
from pathlib import Path

from laguna.privacy import private_directory, write_private

# the cloud's modules only when used: the deployment layer imports this one
if t.TYPE_CHECKING:
    from laguna.cloud.base import Cloud, Host, Offer, StackResult

#: the clouds servers may live on; the first is the default
KINDS = ("local", "containers", "ssh")
DEFAULT_KIND = KINDS[0]
#: ``--cloud here`` (TOSCA, descriptors): operations on this machine, no cloud asked for
HERE = "here"
FOLDER = "environments"


@dataclasses.dataclass(frozen=True)
class CloudRequest:
    """What a command asked for: ``--cloud`` (None: the kept kind) and ``--inventory``."""

    kind: str | None = None
    inventory: Path | None = None

    @classmethod
    def of(cls, cloud: str | None, inventory: Path | None = None) -> CloudRequest | None:
        """The request of ``--cloud`` and ``--inventory``; None when they ask for
        nothing (``here`` is no cloud: the environment's stays)."""
        kind = None if cloud in (None, HERE) else cloud
        if kind is None and inventory is None:
            return None
        return cls(kind, inventory.resolve() if inventory is not None else None)


@dataclasses.dataclass(frozen=True)
class CloudChoice:
    """The cloud of one environment."""

    kind: str = DEFAULT_KIND
    #: the ssh cloud's inventory file (absolute); None: the driver's default
    inventory: Path | None = None
    #: the stacks the environment holds on it
    stacks: tuple[str, ...] = ()
    #: the stacks it holds on other clouds: (stack, kind) pairs
    elsewhere: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, t.Any]:
        return {"kind": self.kind,
                "inventory": str(self.inventory) if self.inventory is not None else None,
                "stacks": list(self.stacks), "elsewhere": dict(self.elsewhere)}

    @classmethod
    def from_json(cls, data: t.Mapping[str, t.Any]) -> CloudChoice:
        inventory = data.get("inventory")
        elsewhere = data.get("elsewhere")
        return cls(str(data.get("kind") or DEFAULT_KIND),
                   Path(inventory) if inventory else None,
                   tuple(str(s) for s in data.get("stacks") or ()),
                   tuple((str(stack), str(kind)) for stack, kind in
                         (elsewhere.items() if isinstance(elsewhere, dict) else ())))

    def holding(self, stack: str, kind: str, held: bool) -> CloudChoice:
        """This choice with ``stack`` held (or no longer) on the ``kind`` cloud."""
        stacks = [s for s in self.stacks if s != stack]
        elsewhere = [(s, k) for s, k in self.elsewhere if s != stack]
        if held and kind == self.kind:
            stacks.append(stack)
        elif held:
            elsewhere.append((stack, kind))
        return dataclasses.replace(self, stacks=tuple(stacks), elsewhere=tuple(elsewhere))


def choice_file(state_dir: Path, environment_id: str) -> Path:
    return state_dir / FOLDER / f"{environment_id}.json"


def kept_choice(state_dir: Path, environment_id: str) -> CloudChoice | None:
    """The choice kept for the environment; None when none is."""
    path = choice_file(state_dir, environment_id)
    try:
        return CloudChoice.from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None


def keep_choice(state_dir: Path, environment_id: str, choice: CloudChoice) -> None:
    path = choice_file(state_dir, environment_id)
    private_directory(path.parent)
    partial = path.with_suffix(".partial")
    write_private(partial, (json.dumps(choice.to_json()) + "\n").encode("utf-8"))
    partial.replace(path)


def choose(state_dir: Path, environment_id: str, request: CloudRequest | None, *,
           keep: bool = True) -> CloudChoice:
    """The environment's cloud for the next operation: the kept one, changed by
    ``request`` (kept with ``keep``). CloudUnavailable for an unknown kind or an
    inventory for another kind than ssh; CloudSwitchRefused for another kind
    while the environment holds stacks."""
    from laguna.hosts.errors import CloudSwitchRefused, CloudUnavailable
    kept = kept_choice(state_dir, environment_id)
    current = kept or CloudChoice(stacks=_legacy_stacks(state_dir, environment_id))
    if request is None:
        return current
    kind = request.kind or current.kind
    if kind not in KINDS:
        raise CloudUnavailable(f"unknown cloud {kind!r}: expected one of {', '.join(KINDS)}")
    # the ssh cloud's, whatever the default: servers placed there need it too
    inventory = request.inventory if request.inventory is not None else current.inventory
    if kind != current.kind and current.stacks:
        raise CloudSwitchRefused(
            f"the environment's servers are on the {current.kind} cloud (stacks "
            f"{', '.join(current.stacks)}): it cannot use the {kind} cloud until it "
            f"is undeployed there")
    wanted = CloudChoice(kind, inventory, current.stacks, current.elsewhere)
    if kind != current.kind:
        # stacks held elsewhere on what is now the default cloud are its own
        wanted = dataclasses.replace(
            wanted, stacks=tuple(s for s, k in current.elsewhere if k == kind),
            elsewhere=tuple((s, k) for s, k in current.elsewhere if k != kind))
    if keep and wanted != kept:
        keep_choice(state_dir, environment_id, wanted)
    return wanted


def _legacy_stacks(state_dir: Path, environment_id: str) -> tuple[str, ...]:
    """The local cloud's stacks an environment deployed before choices were kept
    holds (its id, or the first 12 characters of it, in their names)."""
    folder = state_dir / "stacks"
    if not folder.is_dir() or not environment_id:
        return ()
    from laguna.cloud.local.statefiles import StateFiles
    return tuple(name for name in StateFiles(folder).stacks()
                 if environment_id[:12] in name)


#: one lock for every TrackedCloud: the clouds of one environment share its file
_RECORDING = threading.Lock()


class TrackedCloud:
    """A cloud whose stacks pushed and deleted through it are recorded in the
    environment's kept choice (so that a switch of cloud knows what it would
    strand, and a drift check finds every host); ``kind`` is the cloud's (None:
    the choice's own)."""

    def __init__(self, cloud: Cloud, state_dir: Path, environment_id: str,
                 choice: CloudChoice, kind: str | None = None) -> None:
        self.cloud = cloud
        self.state_dir = state_dir
        self.environment_id = environment_id
        self.choice = choice
        self.kind = kind or choice.kind

    def _record(self, stack: str, held: bool) -> None:
        with _RECORDING:
            kept = kept_choice(self.state_dir, self.environment_id) or self.choice
            wanted = kept.holding(stack, self.kind, held)
            if wanted != kept or kept is self.choice:
                keep_choice(self.state_dir, self.environment_id, wanted)

    def push_stack(self, stack: str, template: t.Mapping[str, t.Any],
                   parameters: t.Mapping[str, t.Any] | None = None,
                   files: t.Mapping[str, str] | None = None) -> StackResult:
        self._record(stack, True)       # first: a failed push may leave resources
        return self.cloud.push_stack(stack, template, parameters, files)

    def delete_stack(self, stack: str) -> None:
        self.cloud.delete_stack(stack)
        self._record(stack, False)

    def get_template(self, stack: str) -> dict[str, t.Any] | None:
        return self.cloud.get_template(stack)

    def stack_outputs(self, stack: str) -> dict[str, t.Any]:
        return self.cloud.stack_outputs(stack)

    def stacks(self) -> list[str]:
        return self.cloud.stacks()

    def hosts(self, stack: str) -> list[Host]:
        return self.cloud.hosts(stack)

    def find_host(self, stack: str, name: str) -> Host | None:
        return self.cloud.find_host(stack, name)

    def offer(self) -> Offer:
        return self.cloud.offer()

    def __getattr__(self, name: str) -> t.Any:
        # the driver's own extras (a local cloud's settings, its close...)
        if name.startswith("__") or name in ("cloud", "kind"):
            raise AttributeError(name)
        return getattr(self.cloud, name)
