"""What a form may choose for its cloud fields (flavor, image, keypair,
azone, network): murano-dashboard asked Nova, Glance and Neutron; laguna asks
the environment's cloud (each driver's ``offer()``, docs/CLOUD.md), and the
caller passes the answer in as a :class:`ChoicesMapping` (the CLI its cloud's,
the dashboard the API's ``GET /v1/environments/{id}/choices``)."""

from __future__ import annotations

import dataclasses
import typing as t

#: bounds on a mapping that may come from another process (the API's answer)
MAX_CHOICES = 1000
MAX_CHOICE_LENGTH = 255


class ChoicesMapping(t.TypedDict):
    """A cloud's offer as JSON: each list's first entry is its default."""

    flavors: t.Sequence[str]
    images: t.Sequence[str]
    keypairs: t.Sequence[str]
    zones: t.Sequence[str]
    networks: t.Sequence[str]


KEYS = ("flavors", "images", "keypairs", "zones", "networks")


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

    @classmethod
    def of_mapping(cls, offer: ChoicesMapping) -> CloudChoices:
        """The choices of a cloud's offer; ValueError naming the key when a
        list is missing, empty, too long or holds something else than text."""
        lists: dict[str, tuple[str, ...]] = {}
        for key in KEYS:
            values = offer.get(key)
            if not isinstance(values, (list, tuple)) or not values:
                raise ValueError(f"choices: {key} must be a non-empty list of names")
            if len(values) > MAX_CHOICES:
                raise ValueError(f"choices: {key} has more than {MAX_CHOICES} names")
            if not all(isinstance(v, str) and len(v) <= MAX_CHOICE_LENGTH for v in values):
                raise ValueError(f"choices: {key} must hold names of at most "
                                 f"{MAX_CHOICE_LENGTH} characters")
            lists[key] = tuple(values)
        return cls(**lists)

    def to_mapping(self) -> ChoicesMapping:
        return ChoicesMapping(flavors=self.flavors, images=self.images,
                              keypairs=self.keypairs, zones=self.zones,
                              networks=self.networks)


#: the local cloud's offer (laguna.cloud.offers.LOCAL_OFFER, which a test keeps
#: equal), for callers that have no cloud to ask: a host is a process here, so
#: a flavor or an image changes nothing and the usual names are offered
LOCAL_CHOICES = CloudChoices(
    flavors=("m1.small", "m1.tiny", "m1.medium", "m1.large"),
    images=("ubuntu", "debian"),
    keypairs=("",),
    zones=("nova",),
    networks=("auto",),
)
