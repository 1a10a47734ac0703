"""io.murano.system.NetworkExplorer: what the cloud's networking knows.

Every method asks the run's services (:meth:`DeploymentServices.network_info`
with the MuranoPL method name), so a dry run answers with fixed values and
``laguna test`` with a clear error.
"""

from __future__ import annotations

import typing as t

from laguna.corelib.declare import REQUIRED, native
from laguna.corelib.services import services_of
from laguna.lang.dispatch import thaw
from laguna.lang.types import MuranoClass

EXPLORER_CLASS = "io.murano.system.NetworkExplorer"

QUERIES: dict[str, list[tuple[str, t.Any]]] = {
    "getDefaultRouter": [],
    "getAvailableCidr": [("routerId", REQUIRED), ("netId", REQUIRED), ("ipVersion", 4)],
    "getDefaultDns": [("ipVersion", 4)],
    "getExternalNetworkIdForRouter": [("routerId", REQUIRED)],
    "getExternalNetworkIdForNetwork": [("networkId", REQUIRED)],
    "listNetworks": [],
    "listSubnetworks": [],
    "listPorts": [],
    "listNeutronExtensions": [],
}


def bind_explorer(cls: MuranoClass) -> None:
    for query, arguments in QUERIES.items():
        names = [name for name, _ in arguments]

        def ask(executor: t.Any, this: t.Any, frame: t.Any, _query: str = query,
                _names: list[str] = names, **values: t.Any) -> t.Any:
            args = [thaw(values[name]) for name in _names]
            return services_of(executor).network_info(_query, *args)

        native(cls, query, ask, arguments)
