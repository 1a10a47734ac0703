"""The resource types a driver of this package realises, one class each.

A type's ``create``/``update``/``delete`` ask the driver (a :class:`Realm`)
for what is real: addresses, hosts, volume storage. What a type records and
what its attributes are is the same for every driver, so a dry run answers
``get_attr`` the way the local cloud does.
"""

from __future__ import annotations

import email.charset
import hashlib
import ipaddress
import json
import typing as t
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import yaml

from laguna.cloud.errors import CloudError
from laguna.cloud.state import ResourceRecord, StackState


class Realm(t.Protocol):
    """What a driver gives resource types."""

    state: StackState

    def save(self) -> None: ...

    def new_id(self, record_name: str) -> str: ...

    def allocate_address(self, record: ResourceRecord) -> str: ...

    def floating_address(self, record: ResourceRecord) -> str | None:
        """An address of its own for a floating IP on a port, or None to give
        it the port's address."""
        ...

    def release_address(self, address: str) -> None: ...

    def start_host(self, record: ResourceRecord) -> None: ...

    def stop_host(self, record: ResourceRecord) -> None: ...

    def create_volume(self, record: ResourceRecord) -> str: ...

    def delete_volume(self, record: ResourceRecord) -> None: ...

    def attach_volume(self, record: ResourceRecord, server: ResourceRecord,
                      volume: ResourceRecord) -> None: ...

    def detach_volume(self, record: ResourceRecord) -> None: ...

    def signal_url(self, handle: ResourceRecord) -> tuple[str, str]:
        """Where hosts signal a wait-condition handle: its URL (carrying the
        secret) and the secret."""
        ...

    def forget_handle(self, handle: ResourceRecord) -> None: ...

    def await_signals(self, condition: ResourceRecord, handle: ResourceRecord,
                      count: int, timeout: float) -> None:
        """Have ``condition`` wait for ``count`` signals of ``handle`` before the
        push ends (its ``data["signals"]`` then holds them), failing the push
        after ``timeout`` seconds."""
        ...


def _fail(realm: Realm, record: ResourceRecord, prop: str, message: str) -> t.NoReturn:
    raise CloudError(message, stack=realm.state.stack, resource=record.name,
                     path=f"resources.{record.name}.properties.{prop}")


class ResourceType:
    """A recorded resource with ``name`` and ``show`` attributes and nothing real."""

    name: t.ClassVar[str] = ""

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        pass

    def update(self, realm: Realm, record: ResourceRecord,
               properties: dict[str, t.Any]) -> None:
        record.properties = properties

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        pass

    def attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        attrs = self.own_attributes(realm, record)
        attrs.setdefault("name", record.properties.get("name", record.name))
        attrs["show"] = {"id": record.id, **record.properties, **attrs}
        return attrs

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        return {}


def network_name(realm: Realm, ref: t.Any) -> str:
    """The name a network is known by in ``addresses``: its name property, else
    its resource name; a network outside the stack keeps the name it was given."""
    net = realm.state.by_id(ref)
    if net is None:
        return str(ref) if ref else "private"
    return str(net.properties.get("name") or net.name)


class Server(ResourceType):
    """OS::Nova::Server: a host with its own address, directory and agent."""

    name = "OS::Nova::Server"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        addresses: list[dict[str, t.Any]] = []
        own: list[str] = []
        networks = record.properties.get("networks") or [{}]
        if not isinstance(networks, list):
            _fail(realm, record, "networks", "must be a list")
        for i, entry in enumerate(networks):
            if not isinstance(entry, dict):
                _fail(realm, record, f"networks[{i}]", "must be a mapping")
            port_ref = entry.get("port")
            if port_ref is not None:
                port = realm.state.by_id(port_ref)
                if port is None or port.type != Port.name:
                    _fail(realm, record, f"networks[{i}].port",
                          f"no port {port_ref!r} in the stack")
                addresses.append({"network": port.data["network"],
                                  "addr": port.data["address"], "port": port.id})
                continue
            address = realm.allocate_address(record)
            own.append(address)
            addresses.append({"network": network_name(realm, entry.get("network")),
                              "addr": address, "port": None})
        record.data.update(addresses=addresses, own_addresses=own,
                           user_data=self.user_data(realm, record))
        realm.start_host(record)

    @staticmethod
    def user_data(realm: Realm, record: ResourceRecord) -> str | None:
        value = record.properties.get("user_data")
        config = realm.state.by_id(value)
        if config is not None and config.type in CONFIG_TYPES:
            return str(config.data.get("config", ""))
        return None if value is None else str(value)

    def update(self, realm: Realm, record: ResourceRecord,
               properties: dict[str, t.Any]) -> None:
        # In place: the host keeps its address, directory and processes.
        record.properties = properties
        record.data["user_data"] = self.user_data(realm, record)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        realm.stop_host(record)
        for address in record.data.get("own_addresses", []):
            realm.release_address(address)

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        entries = record.data.get("addresses", [])
        networks: dict[str, list[str]] = {}
        addresses: dict[str, list[dict[str, t.Any]]] = {}
        for entry in entries:
            networks.setdefault(entry["network"], []).append(entry["addr"])
            addresses.setdefault(entry["network"], []).append({
                "addr": entry["addr"], "version": 4, "OS-EXT-IPS:type": "fixed",
                "port": entry["port"]})
        # as on OpenStack, a floating IP on one of the server's ports is listed
        # after the fixed addresses of its network
        by_port = {entry["port"]: entry["network"] for entry in entries if entry["port"]}
        for fip in realm.state.of_type(FloatingIP.name):
            network = by_port.get(fip.properties.get("port_id"))
            address = fip.data.get("address")
            if network is not None and address and address not in networks[network]:
                networks[network].append(address)
                addresses[network].append({
                    "addr": address, "version": 4, "OS-EXT-IPS:type": "floating",
                    "port": fip.properties.get("port_id")})
        first = entries[0]["addr"] if entries else None
        return {"first_address": first, "accessIPv4": first, "networks": networks,
                "addresses": addresses, "instance_name": record.name,
                "metadata": record.properties.get("metadata") or {},
                "status": "ACTIVE" if record.data.get("url") else "BUILD"}


class Net(ResourceType):
    name = "OS::Neutron::Net"

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        subnets = [s.id for s in realm.state.of_type(Subnet.name)
                   if s.properties.get("network") in (record.id, record.name)
                   or s.properties.get("network_id") == record.id]
        return {"subnets": subnets, "status": "ACTIVE"}


class Subnet(ResourceType):
    """Records its CIDR; ports on it get a logical address from it as well."""

    name = "OS::Neutron::Subnet"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        cidr = record.properties.get("cidr")
        try:
            network = ipaddress.ip_network(str(cidr), strict=False)
        except ValueError:
            _fail(realm, record, "cidr", f"{cidr!r} is not a network address")
        record.data["cidr"] = str(network)
        record.data["next"] = 2        # .1 is the gateway

    def logical_address(self, record: ResourceRecord) -> str:
        network = ipaddress.ip_network(record.data["cidr"])
        number = int(record.data["next"])
        record.data["next"] = number + 1
        return str(network.network_address + number)

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        network = ipaddress.ip_network(record.data["cidr"])
        return {"cidr": str(network), "gateway_ip": str(network.network_address + 1),
                "network_id": record.properties.get("network"),
                "ip_version": network.version,
                "allocation_pools": [{"start": str(network.network_address + 2),
                                      "end": str(network.broadcast_address - 1)}]}


class Port(ResourceType):
    """One address of a host: a real address (loopback alias or namespace
    address) and, if the port is on a subnet of the stack, a logical one."""

    name = "OS::Neutron::Port"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        props = record.properties
        net_ref = props.get("network", props.get("network_id"))
        subnet = None
        fixed = props.get("fixed_ips") or []
        if fixed and isinstance(fixed[0], dict):
            subnet = realm.state.by_id(fixed[0].get("subnet", fixed[0].get("subnet_id")))
        if subnet is None:
            subnet = next((s for s in realm.state.of_type(Subnet.name)
                           if s.properties.get("network") == net_ref), None)
        record.data.update(
            network=network_name(realm, net_ref), network_id=net_ref,
            subnet_id=subnet.id if subnet is not None else None,
            logical_address=(Subnet().logical_address(subnet)
                             if subnet is not None else None))
        record.data["address"] = realm.allocate_address(record)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        if "address" in record.data:
            realm.release_address(record.data["address"])

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        mac = hashlib.sha256(record.id.encode()).hexdigest()[:10]
        return {"fixed_ips": [{"ip_address": record.data.get("address"),
                               "subnet_id": record.data.get("subnet_id")}],
                "network_id": record.data.get("network_id"),
                "mac_address": "fa:16:3e:" + ":".join(mac[i:i + 2] for i in (0, 2, 4)),
                "status": "ACTIVE"}


class FloatingIP(ResourceType):
    """On a port, the port's own address (reachable from this machine), unless
    the realm gives it one of its own (dry runs, as on OpenStack); without a
    port, an address of its own."""

    name = "OS::Neutron::FloatingIP"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        port = realm.state.by_id(record.properties.get("port_id"))
        own = realm.floating_address(record) if port is not None else None
        if port is not None and own is None:
            record.data.update(address=port.data["address"], own=False)
        elif own is not None:
            record.data.update(address=own, own=True)
        else:
            record.data.update(address=realm.allocate_address(record), own=True)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        if record.data.get("own") and "address" in record.data:
            realm.release_address(record.data["address"])

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        port = realm.state.by_id(record.properties.get("port_id"))
        return {"floating_ip_address": record.data.get("address"),
                "fixed_ip_address": port.data["address"] if port else None,
                "port_id": record.properties.get("port_id"),
                "floating_network_id": record.properties.get(
                    "floating_network", record.properties.get("floating_network_id"))}


class Router(ResourceType):
    name = "OS::Neutron::Router"


class RouterInterface(ResourceType):
    name = "OS::Neutron::RouterInterface"


class SecurityGroup(ResourceType):
    """Recorded with its rules; the local cloud does not filter traffic."""

    name = "OS::Neutron::SecurityGroup"

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        return {"rules": list(record.properties.get("rules") or [])}


class Volume(ResourceType):
    """Storage the driver provides (a directory on the local cloud)."""

    name = "OS::Cinder::Volume"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        record.data["path"] = realm.create_volume(record)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        realm.delete_volume(record)

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        attachments = [{"id": a.id, "server_id": a.properties.get("instance_uuid"),
                        "volume_id": record.id,
                        "device": a.properties.get("mountpoint")}
                       for a in realm.state.of_type(VolumeAttachment.name)
                       if a.properties.get("volume_id") == record.id]
        return {"size": record.properties.get("size"),
                "status": "in-use" if attachments else "available",
                "attachments_list": attachments, "attachments": attachments}


class VolumeAttachment(ResourceType):
    """Makes a volume appear inside a host at the mount point."""

    name = "OS::Cinder::VolumeAttachment"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        server = realm.state.by_id(record.properties.get("instance_uuid"))
        if server is None or server.type != Server.name:
            _fail(realm, record, "instance_uuid", "no server of that id in the stack")
        volume = realm.state.by_id(record.properties.get("volume_id"))
        if volume is None or volume.type != Volume.name:
            _fail(realm, record, "volume_id", "no volume of that id in the stack")
        if not isinstance(record.properties.get("mountpoint"), str):
            _fail(realm, record, "mountpoint", "a mount point path is needed")
        realm.attach_volume(record, server, volume)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        realm.detach_volume(record)


class SoftwareConfig(ResourceType):
    """OS::Heat::SoftwareConfig: recorded; its ``config`` is what a server's
    user_data gets when it refers to the config."""

    name = "OS::Heat::SoftwareConfig"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        record.data["config"] = self.config(realm, record)

    def update(self, realm: Realm, record: ResourceRecord,
               properties: dict[str, t.Any]) -> None:
        record.properties = properties
        record.data["config"] = self.config(realm, record)

    def config(self, realm: Realm, record: ResourceRecord) -> t.Any:
        return record.properties.get("config", "")

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        return {"config": record.data.get("config")}


class StructuredConfig(SoftwareConfig):
    name = "OS::Heat::StructuredConfig"


class CloudConfig(SoftwareConfig):
    name = "OS::Heat::CloudConfig"

    def config(self, realm: Realm, record: ResourceRecord) -> t.Any:
        body = yaml.safe_dump(record.properties.get("cloud_config") or {},
                              default_flow_style=False)
        return "#cloud-config\n" + body


class MultipartMime(SoftwareConfig):
    name = "OS::Heat::MultipartMime"

    def config(self, realm: Realm, record: ResourceRecord) -> t.Any:
        parts = []
        for part in record.properties.get("parts") or []:
            part = part if isinstance(part, dict) else {"config": part}
            config = realm.state.by_id(part.get("config"))
            text = (str(config.data.get("config", "")) if config is not None
                    else str(part.get("config", "")))
            guess = "cloud-config" if text.startswith("#cloud-config") else "x-shellscript"
            parts.append((text, str(part.get("subtype") or guess)))
        # A boundary from the content keeps dry-run output the same run after run.
        digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:24]
        message = MIMEMultipart(boundary=f"==============={digest}==")
        for i, (text, subtype) in enumerate(parts):
            charset = email.charset.Charset("utf-8")
            charset.body_encoding = None  # type: ignore[assignment]  # text, not base64
            sub = MIMEText(text, subtype, charset)  # type: ignore[arg-type]
            sub.add_header("Content-Disposition", "attachment", filename=f"part-{i}")
            message.attach(sub)
        return message.as_string()


class ServerGroup(ResourceType):
    name = "OS::Nova::ServerGroup"


class WaitConditionHandle(ResourceType):
    """OS::Heat::WaitConditionHandle: a URL hosts POST to (Heat's signal); the
    realm serves it. ``curl_cli`` is the command scripts run, as Heat's, with
    ``--data-binary '{"status": "SUCCESS"}'`` appended by the caller. The
    secret is in the URL where Heat sends a token header."""

    name = "OS::Heat::WaitConditionHandle"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        url, secret = realm.signal_url(record)
        record.data.update(endpoint=url, token=secret)

    def delete(self, realm: Realm, record: ResourceRecord) -> None:
        realm.forget_handle(record)

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        url = record.data.get("endpoint")
        return {"endpoint": url, "token": record.data.get("token"),
                "curl_cli": ("curl -i -X POST -H 'Content-Type: application/json' "
                             f"-H 'Accept: application/json' {url}")}


class WaitCondition(ResourceType):
    """OS::Heat::WaitCondition: the push does not end before ``count`` signals
    reached ``handle`` (one FAILURE signal, or ``timeout`` seconds, fail it)."""

    name = "OS::Heat::WaitCondition"

    def create(self, realm: Realm, record: ResourceRecord) -> None:
        props = record.properties
        handle = realm.state.by_id(props.get("handle"))
        if handle is None or handle.type != WaitConditionHandle.name:
            _fail(realm, record, "handle",
                  f"no {WaitConditionHandle.name} {props.get('handle')!r} in the stack")
        count = props.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            _fail(realm, record, "count", f"must be a positive integer, got {count!r}")
        timeout = props.get("timeout")
        if isinstance(timeout, str) and timeout.strip().isdigit():
            timeout = int(timeout)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            _fail(realm, record, "timeout",
                  f"a number of seconds greater than 0 is needed, got {timeout!r}")
        realm.await_signals(record, handle, count, float(timeout))

    def update(self, realm: Realm, record: ResourceRecord,
               properties: dict[str, t.Any]) -> None:
        # as in Heat, a condition met stays met; a new count or handle asks again
        record.properties = properties
        self.create(realm, record)

    def own_attributes(self, realm: Realm, record: ResourceRecord) -> dict[str, t.Any]:
        signals = record.data.get("signals") or []
        # Heat's `data`: a JSON object of each signal's id and data
        return {"data": json.dumps({s["id"]: s.get("data") for s in signals},
                                   sort_keys=True)}


TYPES: dict[str, ResourceType] = {cls.name: cls() for cls in (
    Server, Net, Subnet, Port, FloatingIP, Router, RouterInterface, SecurityGroup,
    Volume, VolumeAttachment, SoftwareConfig, StructuredConfig, CloudConfig,
    MultipartMime, ServerGroup, WaitConditionHandle, WaitCondition)}
CONFIG_TYPES = frozenset({SoftwareConfig.name, StructuredConfig.name, CloudConfig.name,
                          MultipartMime.name})
