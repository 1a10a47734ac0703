"""What a form may choose for its cloud fields (flavor, image, keypair,
azone, network): murano-dashboard asked Nova, Glance and Neutron; laguna asks
the caller, and the local cloud offers the fixed set LOCAL_CHOICES."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class CloudChoices:
    """The values each cloud field type accepts, the first being its default."""

    flavors: tuple[str, ...]
    images: tuple[str, ...]
    keypairs: tuple[str, ...]
    zones: tuple[str, ...]
    networks: tuple[str, ...]

    def of(self, field_type: str) -> tuple[str, ...]:
        """The choices of a field type (``flavor``, ``image``, ``keypair``,
        ``azone`` or ``network``)."""
        return {"flavor": self.flavors, "image": self.images, "keypair": self.keypairs,
                "azone": self.zones, "network": self.networks}[field_type]


#: The local cloud runs every host as a process on this machine: a flavor or
#: an image changes nothing there, so it names the usual ones; it has no key
#: pairs (the empty choice, "No keypair", as in murano-dashboard), one zone
#: and one network, the environment's own ("auto", murano-dashboard's "Auto").
LOCAL_CHOICES = CloudChoices(
    flavors=("m1.small", "m1.tiny", "m1.medium", "m1.large"),
    images=("ubuntu", "debian"),
    keypairs=("",),
    zones=("nova",),
    networks=("auto",),
)
