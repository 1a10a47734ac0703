"""What a cloud offers the forms that deploy onto it: the flavors, images, key
pairs, availability zones and networks a server may name. murano-dashboard
asked Nova, Glance and Neutron for them; each laguna driver answers from what
it really is (docs/CLOUD.md, "What a cloud offers")."""

from __future__ import annotations

import dataclasses

#: flavors where a flavor changes nothing (a host is a process or a container
#: without limits of its own): the usual names, so that models written for
#: OpenStack keep theirs
NOMINAL_FLAVORS = ("m1.small", "m1.tiny", "m1.medium", "m1.large")
#: no key pair: laguna reaches its hosts through its agent, never over a key
#: pair of the cloud (murano-dashboard's "No keypair" is the empty name)
NO_KEYPAIR = ("",)
#: one zone where the cloud has no zones (Nova's default zone's name)
ONE_ZONE = ("nova",)
#: the environment's own network, made for it by the cloud (murano-dashboard's
#: "Auto", which the model writes as ``[null, null]``)
AUTO_NETWORK = ("auto",)


@dataclasses.dataclass(frozen=True, slots=True)
class Offer:
    """Each list's first entry is the cloud's default for its field."""

    flavors: tuple[str, ...]
    images: tuple[str, ...]
    keypairs: tuple[str, ...]
    zones: tuple[str, ...]
    networks: tuple[str, ...]

    def to_json(self) -> dict[str, list[str]]:
        return {field.name: list(getattr(self, field.name))
                for field in dataclasses.fields(self)}


#: the local cloud's (and a dry run's): a host is a process here, so a flavor
#: or an image changes nothing; the usual names are offered
LOCAL_OFFER = Offer(flavors=NOMINAL_FLAVORS, images=("ubuntu", "debian"),
                    keypairs=NO_KEYPAIR, zones=ONE_ZONE, networks=AUTO_NETWORK)
