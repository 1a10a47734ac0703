"""Core classes run against recording services: reports, the server's HOT
fragment, outputs read back, agent results and the no-cloud error."""

from __future__ import annotations

import typing as t

import pytest

from laguna.corelib.services import NoServices, RecordingServices, attach, host_key
from laguna.lang.dispatch import freeze, thaw
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry

ENVIRONMENT = {
    "?": {"type": "io.murano.Environment", "id": "env1"},
    "name": "test",
    "defaultNetworks": {
        "environment": {"?": {"type": "io.murano.resources.NeutronNetwork", "id": "net1"},
                        "name": "net1"},
        "flat": None,
    },
    "applications": [],
}


def environment(services: t.Any) -> tuple[Executor, t.Any]:
    executor = Executor(core_registry())
    attach(executor, services)
    env = executor.run(lambda: executor.load_model(ENVIRONMENT))
    return executor, env


def server(executor: Executor, env: t.Any, **properties: t.Any) -> t.Any:
    values = {"name": "web", "flavor": "m1.small", "image": "ubuntu", **properties}
    cls = executor.classes.find("io.murano.resources.LinuxInstance")
    return executor.run(lambda: executor.new_object(cls, env, values, object_id="vm1"))


def test_host_key_is_lower_cased_environment_and_instance() -> None:
    assert host_key("ENV1", "Vm1") == "eenv1-hvm1"


def test_reporter_records_object_level_and_text() -> None:
    services = RecordingServices()
    executor, env = environment(services)
    reporter = env.values["reporter"]
    executor.call(reporter, "report", env, "hello")
    executor.call(reporter, "report_error", None, {"not": "text"})
    assert services.reports == [("env1", "info", "hello"),
                                ("env1", "error", "{'not': 'text'}")]


def test_server_fragment_is_the_originals_hot() -> None:
    services = RecordingServices()
    executor, env = environment(services)
    vm = server(executor, env, assignFloatingIp=True, keyname="key")
    executor.call(vm, "beginDeploy")
    template = thaw(executor.call(env.values["stack"], "current"))
    group = env.values["securityGroupManager"].values["defaultGroupName"]
    resources = template["resources"]
    assert resources["web"] == {
        "type": "OS::Nova::Server",
        "properties": {
            "name": "web", "flavor": "m1.small", "availability_zone": "nova",
            "user_data": None, "user_data_format": "HEAT_CFNTOOLS", "key_name": "key",
            "metadata": {}, "image": "ubuntu",
            "networks": [{"port": {"get_resource": "port-net1-web"}}],
        },
    }
    assert resources["port-net1-web"] == {
        "type": "OS::Neutron::Port",
        "properties": {"network": {"get_resource": "network-net1"},
                       "replacement_policy": "AUTO",
                       "fixed_ips": [{"subnet": {"get_resource": "subnet-net1"}}],
                       "security_groups": [{"get_resource": group}]},
    }
    assert resources["fip-net1-web"] == {
        "type": "OS::Neutron::FloatingIP",
        "properties": {"floating_network": "external-net",
                       "port_id": {"get_resource": "port-net1-web"}},
        "depends_on": ["ri-net1"],
    }
    assert template["outputs"]["web-id"] == {"description": "ID of web instance",
                                             "value": {"get_resource": "web"}}
    assert template["outputs"]["addresses-web-net1"]["value"] == {
        "get_attr": ["web", "addresses", "net1-net1"]}
    assert template["outputs"]["web-floatingIPaddress"]["value"] == {
        "get_attr": ["fip-net1-web", "floating_ip_address"]}
    assert {"port_range_min": 22, "port_range_max": 22, "protocol": "tcp",
            "ethertype": "IPv4", "direction": "ingress",
            "remote_ip_prefix": "0.0.0.0/0"} in resources[group]["properties"]["rules"]


def test_end_deploy_reads_outputs() -> None:
    services = RecordingServices()
    executor, env = environment(services)
    vm = server(executor, env, assignFloatingIp=True)
    executor.call(vm, "deploy")
    values = vm.values
    assert values["openstackId"].startswith("web-")
    assert values["floatingIpAddress"] == "198.51.100.10"
    assert values["ipAddresses"] == ("192.0.2.10", "198.51.100.10")
    assert values["joinedNetworks"][0]["ipList"] == ("192.0.2.10",)
    # the network was pushed on its own first, then the server
    assert [r.kind for r in services.log if r.kind in ("push", "delete")] == ["push", "push"]


def test_release_removes_the_servers_resources() -> None:
    services = RecordingServices()
    executor, env = environment(services)
    vm = server(executor, env)
    executor.call(vm, "deploy")
    executor.call(vm, "releaseResources")
    template = services.stacks[env.values["stack"].values["name"]]
    assert "web" not in template["resources"]
    assert "port-net1-web" not in template["resources"]
    assert "web-id" not in template["outputs"]
    assert vm.values["openstackId"] is None


def test_agent_call_returns_the_body_of_a_v2_result() -> None:
    services = RecordingServices(answers={"Run command": {"exitCode": 0, "stdout": "ok"}})
    executor, env = environment(services)
    vm = server(executor, env)
    linux = executor.classes.find("io.murano.configuration.Linux")
    result = executor.call(linux, "runCommand", vm.values["agent"], "echo ok",
                           helpText="Run command")
    assert result == {"exitCode": 0, "stdout": "ok"}
    key, plan = services.plans[-1]
    assert key == "eenv1-hvm1"
    assert plan["Name"] == "Run command"
    script_file = plan["Files"][plan["Scripts"]["runCommand"]["EntryPoint"]]
    assert script_file == {"Name": "scriptFile.sh", "BodyType": "Text", "Body": "echo ok"}
    assert plan["Scripts"]["runCommand"]["Options"] == {
        "captureStdout": True, "captureStderr": True, "verifyExitcode": True}


def test_put_file_sends_the_content_base64() -> None:
    services = RecordingServices()
    executor, env = environment(services)
    vm = server(executor, env)
    linux = executor.classes.find("io.murano.configuration.Linux")
    executor.call(linux, "putFile", vm.values["agent"], "héllo", "/tmp/x")
    _, plan = services.plans[-1]
    assert plan["Parameters"] == {"path": "/tmp/x"}
    assert plan["Files"]["destinationFile"]["Body"] == "aMOpbGxv"
    assert plan["Scripts"]["putFile"]["Files"] == ["destinationFile"]


class FailingAgent(RecordingServices):
    def agent_execute(self, host_key: str, plan: dict[str, t.Any], timeout: float | None,
                      *, stack: str | None = None,
                      server: str | None = None) -> dict[str, t.Any] | None:
        self.where = (stack, server)
        return self._results.error(plan.get("ID"), 3, "script failed", {"line": 1})


def test_agent_error_result_raises_agent_exception() -> None:
    services = FailingAgent()
    executor, env = environment(services)
    vm = server(executor, env)
    linux = executor.classes.find("io.murano.configuration.Linux")
    with pytest.raises(MuranoPlError) as caught:
        executor.call(linux, "runCommand", vm.values["agent"], "false")
    assert "murano.engine.system.agent.AgentException" in caught.value.names
    assert caught.value.message == "script failed"
    assert services.where == ("murano-env1", "web")


def test_without_services_a_push_names_what_needs_a_cloud() -> None:
    executor, env = environment(NoServices())
    vm = server(executor, env)
    with pytest.raises(MuranoPlError) as caught:
        executor.call(vm, "deploy")
    assert "io.murano.system.ServiceUnavailable" in caught.value.names
    assert "needs a cloud; run it through `laguna deploy`" in caught.value.message


def test_metadata_is_the_objects_own_over_its_owners_nearest_first() -> None:
    """Owners without metadata are passed over; with applicability checked, the
    region's definitions (none here) keep only the object's own entries."""
    executor, env = environment(RecordingServices())
    cls = executor.classes.find("io.murano.resources.LinuxInstance")

    def instance(owner: t.Any, name: str, check: bool = False) -> t.Any:
        values = {"name": name, "flavor": "m1.small", "image": "ubuntu",
                  "checkApplicability": check}
        return executor.run(lambda: executor.new_object(cls, owner, values, object_id=name))

    mid = instance(env, "mid")
    blank = instance(mid, "blank")
    vm = instance(blank, "vm")
    checked = instance(blank, "checked", check=True)
    env.metadata = freeze({"a": "env", "b": "env"})
    mid.metadata = freeze({"b": "mid", "c": "mid"})
    for own in (vm, checked):
        own.metadata = freeze({"c": "own", "d": "own"})
    region = executor.call(vm, "getRegion")
    assert thaw(executor.call(vm, "getMetadata", region)) == {
        "a": "env", "b": "mid", "c": "own", "d": "own"}
    assert thaw(executor.call(blank, "getMetadata", region)) == {
        "a": "env", "b": "mid", "c": "mid"}
    assert thaw(executor.call(checked, "getMetadata", region)) == {"c": "own", "d": "own"}
