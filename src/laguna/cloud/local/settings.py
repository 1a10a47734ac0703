"""The settings a working directory's local cloud keeps: its isolation and
its address range.

They are chosen by the command that first makes hosts (``laguna deploy
--isolation netns``) and kept in ``settings.json`` beside the stacks, so that
``status``, ``action``, ``undeploy`` and a redeploy find the hosts where they
are without repeating the flags. Changing them while stacks exist would strand
those hosts (a namespace the loopback cloud would never delete), so it is
refused until they are undeployed.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import typing as t
from pathlib import Path

from laguna.cloud.errors import IsolationError
from laguna.cloud.local import netns
from laguna.cloud.local.addresses import LOOPBACK_RANGE, NETNS_RANGE
from laguna.cloud.local.statefiles import StateFiles

Isolation = t.Literal["loopback", "netns"]
ISOLATIONS: tuple[Isolation, ...] = ("loopback", "netns")
SETTINGS_FILE = "settings.json"
LOOPBACK = ipaddress.IPv4Network("127.0.0.0/8")


@dataclasses.dataclass(frozen=True)
class CloudSettings:
    isolation: Isolation = "loopback"
    address_range: str = LOOPBACK_RANGE

    @classmethod
    def of(cls, isolation: str, address_range: str | None = None) -> CloudSettings:
        """Checked settings; ``address_range`` defaults to the isolation's own."""
        if isolation not in ISOLATIONS:
            raise IsolationError(f"unknown isolation {isolation!r}: loopback or netns")
        chosen: Isolation = isolation
        default = NETNS_RANGE if chosen == "netns" else LOOPBACK_RANGE
        text = address_range or default
        try:
            network = ipaddress.ip_network(text)
        except ValueError as error:
            raise IsolationError(f"address range {text!r} is not a network: {error}") from None
        if not isinstance(network, ipaddress.IPv4Network) or network.num_addresses < 4:
            raise IsolationError(f"address range {text!r} must be an IPv4 network "
                                 "of at least 4 addresses")
        # Loopback hosts are aliases on lo: any other address would be announced
        # on the machine's real network.
        if chosen == "loopback" and not network.subnet_of(LOOPBACK):
            raise IsolationError(f"address range {text!r} of isolation 'loopback' "
                                 "must lie in 127.0.0.0/8")
        return cls(chosen, str(network))


def load_settings(state_dir: Path) -> CloudSettings:
    """The settings kept in ``state_dir``; the defaults when none are."""
    path = state_dir / SETTINGS_FILE
    if not path.is_file():
        return CloudSettings()
    data = json.loads(path.read_text())
    return CloudSettings.of(data["isolation"], data["address_range"])


def choose_settings(state_dir: Path, isolation: str | None = None,
                    address_range: str | None = None) -> CloudSettings:
    """The settings for the next command: the kept ones, changed by what was
    asked for (a changed isolation brings its own default range). A change is
    kept only while the working directory holds no stack."""
    current = load_settings(state_dir)
    if isolation is None and address_range is None:
        return current
    wanted_isolation = isolation or current.isolation
    if address_range is None and wanted_isolation == current.isolation:
        address_range = current.address_range
    wanted = CloudSettings.of(wanted_isolation, address_range)
    if wanted == current:
        return current
    stacks = StateFiles(state_dir / "stacks").stacks()
    if stacks:
        raise IsolationError(
            f"the hosts of this working directory use isolation {current.isolation!r} "
            f"with addresses of {current.address_range}; undeploy its environments "
            f"(stacks {', '.join(stacks)}) before changing to isolation "
            f"{wanted.isolation!r} with {wanted.address_range}")
    if wanted.isolation == "netns":
        netns.check_available()   # before it is kept: later commands would all fail
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / SETTINGS_FILE).write_text(json.dumps(dataclasses.asdict(wanted)) + "\n")
    return wanted
