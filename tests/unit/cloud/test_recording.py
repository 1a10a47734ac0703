"""The recording cloud: dry runs with placeholder addresses; resource attributes."""

from __future__ import annotations

import typing as t

import pytest

from laguna.cloud import Cloud, RecordingCloud
from laguna.cloud.errors import CloudError, StackNotFound, TemplateError
from laguna.cloud.hot import Diff
from laguna.cloud.recording import Push

ENV: dict[str, t.Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "net": {"type": "OS::Neutron::Net", "properties": {"name": "env-net"}},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"}},
        "sg": {"type": "OS::Neutron::SecurityGroup",
               "properties": {"rules": [{"protocol": "tcp", "port_range_min": 80,
                                         "port_range_max": 80, "direction": "ingress"}]}},
        "port-web": {"type": "OS::Neutron::Port",
                     "properties": {"network": {"get_resource": "net"},
                                    "fixed_ips": [{"subnet": {"get_resource": "subnet"}}],
                                    "security_groups": [{"get_resource": "sg"}]}},
        "fip": {"type": "OS::Neutron::FloatingIP",
                "properties": {"floating_network": "public",
                               "port_id": {"get_resource": "port-web"}}},
        "web": {"type": "OS::Nova::Server",
                "properties": {"name": "web-1", "metadata": {"role": "web"},
                               "networks": [{"port": {"get_resource": "port-web"}}]}},
    },
    "outputs": {
        "web-id": {"value": {"get_resource": "web"}},
        "addresses": {"value": {"get_attr": ["web", "addresses", "env-net"]}},
        "fip": {"value": {"get_attr": ["fip", "floating_ip_address"]}},
        "cidr": {"value": {"get_attr": ["subnet", "cidr"]}},
        "port-ip": {"value": {"get_attr": ["port-web", "fixed_ips", 0, "ip_address"]}},
    },
}


@pytest.fixture
def cloud() -> RecordingCloud:
    return RecordingCloud()


def test_recording_cloud_is_a_cloud(cloud: RecordingCloud) -> None:
    assert isinstance(cloud, Cloud)


def test_push_gives_placeholder_addresses_and_outputs(cloud: RecordingCloud) -> None:
    result = cloud.push_stack("env-1", ENV)
    web_id = cloud.find_host("env-1", "web-1").resource_id  # type: ignore[union-attr]
    port_id = result.outputs["addresses"][0]["port"]
    assert result.outputs == {
        "web-id": web_id,
        # the floating IP has an address of its own, listed after the fixed one
        # (as on OpenStack; the local cloud gives it the port's address)
        "addresses": [{"addr": "192.0.2.1", "version": 4, "OS-EXT-IPS:type": "fixed",
                       "port": port_id},
                      {"addr": "198.51.100.1", "version": 4, "OS-EXT-IPS:type": "floating",
                       "port": port_id}],
        "fip": "198.51.100.1", "cidr": "10.0.0.0/24", "port-ip": "192.0.2.1"}
    assert result.diff == Diff(added=("net", "sg", "subnet", "port-web", "fip", "web"),
                               removed=(), changed=())
    [host] = result.hosts
    assert (host.name, host.server_name, host.addresses, host.agent_url, host.root,
            host.metadata) == ("web", "web-1", ("192.0.2.1",), None, None, {"role": "web"})


def test_ids_are_stable_across_dry_runs() -> None:
    first, second = RecordingCloud(), RecordingCloud()
    assert first.push_stack("env-1", ENV).outputs == second.push_stack("env-1", ENV).outputs


def test_pushes_are_recorded_in_order(cloud: RecordingCloud) -> None:
    cloud.push_stack("env-1", {"resources": {}}, {})
    cloud.push_stack("env-1", ENV)
    cloud.delete_stack("env-1")
    assert cloud.pushes == [Push("env-1", {"resources": {}}, {}), Push("env-1", ENV, {}),
                            Push("env-1", None, {})]
    assert cloud.stacks() == []
    with pytest.raises(StackNotFound):
        cloud.stack_outputs("env-1")


def test_update_adds_removes_and_changes(cloud: RecordingCloud) -> None:
    cloud.push_stack("env-1", ENV)
    resources: dict[str, t.Any] = dict(ENV["resources"])
    del resources["fip"]
    resources["web"] = {"type": "OS::Nova::Server",
                        "properties": {"name": "web-1", "metadata": {"role": "db"},
                                       "networks": [{"port": {"get_resource": "port-web"}}]}}
    resources["db"] = {"type": "OS::Nova::Server"}
    result = cloud.push_stack("env-1", {"resources": resources})
    assert result.diff == Diff(added=("db",), removed=("fip",), changed=("web",))
    assert [(h.name, h.addresses, h.metadata) for h in result.hosts] == [
        ("web", ("192.0.2.1",), {"role": "db"}), ("db", ("192.0.2.2",), {})]
    assert cloud.get_template("env-1") == {"resources": resources}


def test_server_on_a_network_without_port(cloud: RecordingCloud) -> None:
    result = cloud.push_stack("env-1", {
        "resources": {"net": {"type": "OS::Neutron::Net"},
                      "vm": {"type": "OS::Nova::Server",
                             "properties": {"networks": [{"network": {"get_resource": "net"}}]}}},
        "outputs": {"nets": {"value": {"get_attr": ["vm", "networks"]}}}})
    assert result.outputs == {"nets": {"net": ["192.0.2.1"]}}


def test_volume_attachment_lists_on_the_volume(cloud: RecordingCloud) -> None:
    result = cloud.push_stack("env-1", {
        "resources": {
            "vm": {"type": "OS::Nova::Server"},
            "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}},
            "att": {"type": "OS::Cinder::VolumeAttachment",
                    "properties": {"instance_uuid": {"get_resource": "vm"},
                                   "volume_id": {"get_resource": "vol"},
                                   "mountpoint": "/dev/vdb"}}},
        "outputs": {"att": {"value": {"get_attr": ["vol", "attachments_list"]}},
                    "ids": {"value": [{"get_resource": "vm"}, {"get_resource": "vol"},
                                      {"get_resource": "att"}]}}})
    vm, vol, att = result.outputs["ids"]
    assert result.outputs["att"] == [{"id": att, "server_id": vm, "volume_id": vol,
                                      "device": "/dev/vdb"}]


def test_user_data_from_a_software_config(cloud: RecordingCloud) -> None:
    cloud.push_stack("env-1", {"resources": {
        "boot": {"type": "OS::Heat::SoftwareConfig",
                 "properties": {"group": "ungrouped", "config": "#!/bin/sh\necho hi\n"}},
        "vm": {"type": "OS::Nova::Server",
               "properties": {"user_data": {"get_resource": "boot"},
                              "user_data_format": "RAW"}}}})
    assert cloud.hosts("env-1")[0].user_data == "#!/bin/sh\necho hi\n"


def test_multipart_user_data_holds_every_part(cloud: RecordingCloud) -> None:
    cloud.push_stack("env-1", {"resources": {
        "conf": {"type": "OS::Heat::CloudConfig",
                 "properties": {"cloud_config": {"hostname": "web-1"}}},
        "script": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "echo hi"}},
        "mime": {"type": "OS::Heat::MultipartMime",
                 "properties": {"parts": [{"config": {"get_resource": "conf"}},
                                          {"config": {"get_resource": "script"}}]}},
        "vm": {"type": "OS::Nova::Server", "properties": {"user_data": {"get_resource": "mime"}}}}})
    user_data = cloud.hosts("env-1")[0].user_data or ""
    assert user_data.startswith("Content-Type: multipart/mixed")
    assert 'Content-Type: text/cloud-config; charset="utf-8"' in user_data
    assert "#cloud-config\nhostname: web-1\n" in user_data
    assert "echo hi" in user_data


def test_security_group_rules_are_attributes(cloud: RecordingCloud) -> None:
    result = cloud.push_stack("env-1", {
        "resources": {"sg": {"type": "OS::Neutron::SecurityGroup",
                             "properties": {"name": "env-sg", "rules": [{"protocol": "icmp"}]}}},
        "outputs": {"rules": {"value": {"get_attr": ["sg", "rules"]}},
                    "name": {"value": {"get_attr": ["sg", "show", "name"]}}}})
    assert result.outputs == {"rules": [{"protocol": "icmp"}], "name": "env-sg"}


def test_unknown_attribute_fails_with_the_output_path(cloud: RecordingCloud) -> None:
    with pytest.raises(TemplateError) as info:
        cloud.push_stack("env-1", {"resources": {"vm": {"type": "OS::Nova::Server"}},
                                   "outputs": {"x": {"value": {"get_attr": ["vm", "flavour"]}}}})
    assert str(info.value) == ("stack 'env-1': outputs.x.value.get_attr: resource 'vm' of type "
                               "'OS::Nova::Server' has no attribute 'flavour'")


def test_attachment_to_something_not_a_server(cloud: RecordingCloud) -> None:
    with pytest.raises(CloudError) as info:
        cloud.push_stack("env-1", {"resources": {
            "net": {"type": "OS::Neutron::Net"},
            "vol": {"type": "OS::Cinder::Volume"},
            "att": {"type": "OS::Cinder::VolumeAttachment",
                    "properties": {"instance_uuid": {"get_resource": "net"},
                                   "volume_id": {"get_resource": "vol"}, "mountpoint": "/d"}}}})
    assert str(info.value) == ("stack 'env-1': resources.att.properties.instance_uuid: "
                               "no server of that id in the stack")


def test_changing_the_pushed_template_in_place_is_seen_as_a_change(cloud: RecordingCloud) -> None:
    template: dict[str, t.Any] = {
        "resources": {"vm": {"type": "OS::Nova::Server", "properties": {"name": "a"}}}}
    cloud.push_stack("env-1", template)
    template["resources"]["vm"]["properties"]["name"] = "b"
    assert cloud.push_stack("env-1", template).diff == Diff((), (), ("vm",))
    assert cloud.hosts("env-1")[0].server_name == "b"
