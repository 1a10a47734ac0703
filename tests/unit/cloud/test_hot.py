"""HOT templates: validation messages, functions, ordering and diffs."""

from __future__ import annotations

import datetime
import typing as t

import pytest

from laguna.cloud import hot
from laguna.cloud.errors import TemplateError
from laguna.cloud.resources import TYPES


def server(**properties: t.Any) -> dict[str, t.Any]:
    return {"type": "OS::Nova::Server", "properties": properties}


def parse(data: dict[str, t.Any]) -> hot.Template:
    return hot.parse(data, "env-1", known_types=TYPES)


def error(data: dict[str, t.Any]) -> TemplateError:
    with pytest.raises(TemplateError) as info:
        parse(data)
    return info.value


class Attrs:
    def resource_id(self, name: str) -> str:
        return f"id-{name}"

    def attribute(self, name: str, attribute: str) -> t.Any:
        return {"networks": {"net": ["10.0.0.5", "10.0.0.6"]},
                "first_address": "10.0.0.5"}[attribute]


def evaluate(value: t.Any, template: dict[str, t.Any] | None = None,
             params: dict[str, t.Any] | None = None,
             files: dict[str, str] | None = None) -> t.Any:
    parsed = parse(template or {"resources": {"web": server()}})
    values = hot.resolve_parameters(parsed, params or {})
    return hot.Evaluator(parsed, values, Attrs(), files or {}).evaluate(value, "x")


# -- validation ------------------------------------------------------------------

def test_missing_resource_names_the_path_and_the_stack() -> None:
    exc = error({"resources": {"web_server": server(networks=[{"port": {"get_resource": "web_port"}}])}})
    assert str(exc) == ("stack 'env-1': resources.web_server.properties.networks[0].port: "
                        "reference to missing resource 'web_port'")
    assert (exc.code, exc.resource, exc.stack) == ("LAG-E1202", "web_server", "env-1")
    assert exc.path == "resources.web_server.properties.networks[0].port"


def test_unknown_resource_type_fails_with_its_name() -> None:
    exc = error({"resources": {"lb": {"type": "OS::Octavia::LoadBalancer"}}})
    assert str(exc) == "stack 'env-1': resources.lb.type: unknown resource type 'OS::Octavia::LoadBalancer'"
    assert (exc.code, exc.resource) == ("LAG-E1203", "lb")


def test_get_attr_of_missing_resource_in_an_output() -> None:
    exc = error({"resources": {}, "outputs": {"ip": {"value": {"get_attr": ["db", "first_address"]}}}})
    assert str(exc) == "stack 'env-1': outputs.ip.value: reference to missing resource 'db'"


def test_depends_on_missing_resource() -> None:
    exc = error({"resources": {"web": {"type": "OS::Nova::Server", "depends_on": ["a", "db"]},
                               "a": server()}})
    assert str(exc) == "stack 'env-1': resources.web.depends_on[1]: reference to missing resource 'db'"


def test_get_param_of_missing_parameter() -> None:
    exc = error({"resources": {"web": server(flavor={"get_param": "flavor"})}})
    assert str(exc) == "stack 'env-1': resources.web.properties.flavor: reference to missing parameter 'flavor'"
    assert exc.code == "LAG-E1204"


def test_unknown_section_and_resource_key() -> None:
    assert str(error({"resource": {}})) == "stack 'env-1': resource: unknown section 'resource'"
    assert str(error({"resources": {"web": {"type": "OS::Nova::Server", "propreties": {}}}})) == \
        "stack 'env-1': resources.web.propreties: unknown resource key 'propreties'"


def test_parameter_type_must_be_known() -> None:
    exc = error({"parameters": {"n": {"type": "int"}}})
    assert str(exc) == ("stack 'env-1': parameters.n.type: type must be one of boolean, "
                        "comma_delimited_list, json, number, string")


def test_dependency_cycle() -> None:
    exc = error({"resources": {"a": {"type": "OS::Neutron::Net", "depends_on": "b"},
                               "b": {"type": "OS::Neutron::Net", "depends_on": "a"}}})
    assert exc.code == "LAG-E1205"
    assert str(exc) in ("stack 'env-1': resources: dependency cycle: a -> b -> a",
                        "stack 'env-1': resources: dependency cycle: b -> a -> b")


def test_version_may_be_a_yaml_date() -> None:
    assert parse({"heat_template_version": datetime.date(2013, 5, 23)}).version == "2013-05-23"


# -- parameters ------------------------------------------------------------------

def test_parameters_take_defaults_and_convert_types() -> None:
    parsed = parse({"parameters": {
        "name": {"type": "string", "default": "web"},
        "count": {"type": "number"},
        "ratio": {"type": "number", "default": "0.5"},
        "zones": {"type": "comma_delimited_list", "default": "a, b"},
        "debug": {"type": "boolean", "default": "yes"},
        "conf": {"type": "json", "default": '{"a": 1}'}}})
    assert hot.resolve_parameters(parsed, {"count": "3"}) == {
        "name": "web", "count": 3, "ratio": 0.5, "zones": ["a", "b"], "debug": True,
        "conf": {"a": 1}}


def test_parameter_without_value_or_default() -> None:
    parsed = parse({"parameters": {"key": {"type": "string"}}})
    with pytest.raises(TemplateError, match=r"^stack 'env-1': parameters.key: no value given and no default$"):
        hot.resolve_parameters(parsed, {})


def test_parameter_of_wrong_type() -> None:
    parsed = parse({"parameters": {"count": {"type": "number"}}})
    with pytest.raises(TemplateError, match=r"^stack 'env-1': parameters.count: 'many' is not a valid number"):
        hot.resolve_parameters(parsed, {"count": "many"})


# -- functions -------------------------------------------------------------------

def test_get_param_with_a_path_and_stack_name() -> None:
    template = {"parameters": {"conf": {"type": "json", "default": {"db": {"port": 5432}}}},
                "resources": {"web": server()}}
    assert evaluate({"get_param": ["conf", "db", "port"]}, template) == 5432
    assert evaluate({"get_param": "OS::stack_name"}) == "env-1"


def test_get_resource_and_get_attr_with_path() -> None:
    assert evaluate({"get_resource": "web"}) == "id-web"
    assert evaluate({"get_attr": ["web", "networks", "net", 1]}) == "10.0.0.6"
    assert evaluate({"get_attr": ["web", "networks", "other", 0]}) is None


def test_str_replace_longest_key_first() -> None:
    value = {"str_replace": {"template": "$host:$port $hostname",
                             "params": {"$host": {"get_attr": ["web", "first_address"]},
                                        "$hostname": "web-1", "$port": 80}}}
    assert evaluate(value) == "10.0.0.5:80 web-1"


def test_list_join_of_several_lists() -> None:
    assert evaluate({"list_join": [",", ["a", "b"], [{"get_resource": "web"}]]}) == "a,b,id-web"


def test_str_split_and_map_merge() -> None:
    assert evaluate({"str_split": [":", "a:b:c"]}) == ["a", "b", "c"]
    assert evaluate({"str_split": [":", "a:b:c", 1]}) == "b"
    assert evaluate({"map_merge": [{"a": 1, "b": 2}, {"b": 3}]}) == {"a": 1, "b": 3}


def test_repeat_over_two_lists() -> None:
    value = {"repeat": {"for_each": {"%port%": [80, 443], "%proto%": ["tcp"]},
                        "template": {"port": "%port%", "protocol": "%proto%"}}}
    assert evaluate(value) == [{"port": 80, "protocol": "tcp"}, {"port": 443, "protocol": "tcp"}]


def test_get_file_reads_files_given_with_the_template() -> None:
    assert evaluate({"get_file": "install.sh"}, files={"install.sh": "echo hi"}) == "echo hi"
    with pytest.raises(TemplateError, match=r"x.get_file: no file 'x.sh' was given"):
        evaluate({"get_file": "x.sh"})


def test_get_input_is_data() -> None:
    assert evaluate({"config": {"get_input": "deploy_signal_id"}}) == \
        {"config": {"get_input": "deploy_signal_id"}}


def test_bad_list_join_names_its_path() -> None:
    with pytest.raises(TemplateError, match=r"^stack 'env-1': x.list_join: list_join needs a delimiter"):
        evaluate({"list_join": ","})


# -- ordering and diffs ------------------------------------------------------------

NETWORKED = {
    "resources": {
        "web": server(networks=[{"port": {"get_resource": "port"}}]),
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network": {"get_resource": "net"},
                                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]}},
        "subnet": {"type": "OS::Neutron::Subnet",
                   "properties": {"network": {"get_resource": "net"}, "cidr": "10.0.0.0/24"}},
        "net": {"type": "OS::Neutron::Net"},
        "sg": {"type": "OS::Neutron::SecurityGroup", "depends_on": "net"},
    }}


def test_order_puts_dependencies_first_and_ties_in_template_order() -> None:
    assert parse(NETWORKED).order() == ["net", "subnet", "sg", "port", "web"]


def test_diff_added_removed_changed() -> None:
    old = parse(NETWORKED)
    new_data = {"resources": dict(NETWORKED["resources"])}
    del new_data["resources"]["sg"]
    new_data["resources"]["web"] = server(name="web-2", networks=[{"port": {"get_resource": "port"}}])
    new_data["resources"]["db"] = server()
    assert hot.diff(old, parse(new_data)) == hot.Diff(added=("db",), removed=("sg",),
                                                      changed=("web",))
    assert hot.diff(None, old).added == ("web", "port", "subnet", "net", "sg")
