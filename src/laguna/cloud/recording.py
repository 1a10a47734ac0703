"""A cloud for dry runs: it records every push and starts nothing.

Servers and ports get placeholder addresses from the documentation range
192.0.2.0/24 (never contacted), floating IPs on ports addresses of their own
from 198.51.100.0/24 (as on OpenStack, and unlike the local cloud, where a
floating IP is its port's address); volumes get a placeholder path;
wait-condition handles a URL on ``signals.dry-run.invalid``, and wait
conditions are met at once with ``count`` SUCCESS signals.
Templates are validated and outputs computed exactly as the local cloud does,
so the engine's workflow runs unchanged. Nothing outlives the object.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import typing as t
import uuid

from laguna.cloud import stacks
from laguna.cloud.base import Host, StackResult
from laguna.cloud.errors import CloudError, StackNotFound
from laguna.cloud.offers import LOCAL_OFFER, Offer
from laguna.cloud.resources import Server
from laguna.cloud.state import ResourceRecord, StackState

PLACEHOLDER_NETWORK = "192.0.2."
PLACEHOLDER_FLOATING = "198.51.100."    # floating IPs on ports, as RecordingServices
SIGNAL_HOST = "signals.dry-run.invalid"   # wait-condition handles' URLs


@dataclasses.dataclass(frozen=True, slots=True)
class Push:
    """One recorded push, or a delete (``template`` None)."""

    stack: str
    template: dict[str, t.Any] | None
    parameters: dict[str, t.Any]


class _Realm:
    def __init__(self, cloud: RecordingCloud, state: StackState) -> None:
        self.cloud = cloud
        self.state = state

    def save(self) -> None:
        pass

    def new_id(self, record_name: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL,
                              f"laguna-dry-run:{self.state.stack}/{record_name}"))

    def allocate_address(self, record: ResourceRecord) -> str:
        return self._placeholder(PLACEHOLDER_NETWORK, record)

    def floating_address(self, record: ResourceRecord) -> str:
        return self._placeholder(PLACEHOLDER_FLOATING, record)

    def _placeholder(self, network: str, record: ResourceRecord) -> str:
        """The next unused address of ``network`` (a /24 prefix) in this cloud."""
        number = self.cloud._next_address[network] = self.cloud._next_address.get(network, 0) + 1
        if number > 254:
            raise CloudError(f"no placeholder address left in {network}0/24",
                             stack=self.state.stack, resource=record.name)
        return f"{network}{number}"

    def release_address(self, address: str) -> None:
        pass

    def start_host(self, record: ResourceRecord) -> None:
        pass

    def stop_host(self, record: ResourceRecord) -> None:
        pass

    def create_volume(self, record: ResourceRecord) -> str:
        return f"/dry-run/volumes/{self.state.stack}/{record.name}"

    def delete_volume(self, record: ResourceRecord) -> None:
        pass

    def attach_volume(self, record: ResourceRecord, server: ResourceRecord,
                      volume: ResourceRecord) -> None:
        pass

    def detach_volume(self, record: ResourceRecord) -> None:
        pass

    def signal_url(self, handle: ResourceRecord) -> tuple[str, str]:
        # never contacted (.invalid); the same every run, like the addresses
        secret = hashlib.sha256(f"{self.state.stack}/{handle.id}".encode()).hexdigest()[:32]
        return f"http://{SIGNAL_HOST}/signal/{handle.id}/{secret}", secret

    def forget_handle(self, handle: ResourceRecord) -> None:
        pass

    def await_signals(self, condition: ResourceRecord, handle: ResourceRecord,
                      count: int, timeout: float) -> None:
        # a dry run has no hosts to signal: the condition is met at once
        condition.data["signals"] = [
            {"id": str(i), "status": "SUCCESS", "reason": "dry run", "data": None}
            for i in range(1, count + 1)]


class RecordingCloud:
    """Implements :class:`laguna.cloud.base.Cloud`; ``pushes`` lists what was sent."""

    def __init__(self) -> None:
        self.pushes: list[Push] = []
        self._recorded: dict[str, dict[str, t.Any]] = {}     # stack -> its last push's template
        self._stacks: dict[str, StackState] = {}
        self._next_address: dict[str, int] = {}    # per placeholder network
        # engines call from several threads (parallel deployments of servers);
        # each operation sees and leaves whole stacks
        self._lock = threading.RLock()

    def push_stack(self, stack: str, template: t.Mapping[str, t.Any],
                   parameters: t.Mapping[str, t.Any] | None = None,
                   files: t.Mapping[str, str] | None = None) -> StackResult:
        with self._lock:
            # what the stack's last push recorded is shared, not copied again
            kept = stacks.share_copy(dict(template), self._recorded.get(stack))
            self._recorded[stack] = kept
            self.pushes.append(Push(stack, kept, stacks.copy_data(dict(parameters or {}))))
            state = self._stacks.setdefault(stack, StackState(stack))
            diff = stacks.apply(_Realm(self, state), kept, parameters or {}, files or {})
            return StackResult(stack, dict(state.outputs), tuple(self.hosts(stack)), diff)

    def offer(self) -> Offer:
        # a dry run makes nothing: the local cloud's names stand for any cloud's
        return LOCAL_OFFER

    def get_template(self, stack: str) -> dict[str, t.Any] | None:
        with self._lock:
            state = self._stacks.get(stack)
            return stacks.copy_data(state.template) if state is not None else None

    def stack_outputs(self, stack: str) -> dict[str, t.Any]:
        with self._lock:
            if stack not in self._stacks:
                raise StackNotFound("no such stack", stack=stack)
            return dict(self._stacks[stack].outputs)

    def delete_stack(self, stack: str) -> None:
        with self._lock:
            state = self._stacks.pop(stack, None)
            if state is not None:
                self.pushes.append(Push(stack, None, {}))
                self._recorded.pop(stack, None)
                stacks.delete_all(_Realm(self, state))

    def stacks(self) -> list[str]:
        with self._lock:
            return list(self._stacks)

    def hosts(self, stack: str) -> list[Host]:
        with self._lock:
            state = self._stacks.get(stack)
            if state is None:
                return []
            return [stacks.host(stack, r, None) for r in state.of_type(Server.name)]

    def find_host(self, stack: str, name: str) -> Host | None:
        with self._lock:
            return next((h for h in self.hosts(stack)
                         if name in (h.name, h.server_name)), None)
