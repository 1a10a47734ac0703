"""Names, version matching (univers for Maven ranges) and the -l catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.catalog import Catalog, render_dynamic_type, version_matches
from laguna.frontends.assembly.names import descriptor_name_problem, instance_name_problem

CATALOG = Path(__file__).parents[3] / "conformance" / "descriptors" / "catalog"


@pytest.mark.parametrize("name", ["assembly::Example_company2.neutron_network::1.0.0",
                                  "resource::c_streamer::1.0", "resource::a::1"])
def test_valid_descriptor_names(name: str) -> None:
    assert descriptor_name_problem(name) is None


@pytest.mark.parametrize("name,problem", [
    ("assembly::x", "descriptor name 'assembly::x' is not type::name::version"),
    ("thing::x::1.0", "descriptor type 'thing' of 'thing::x::1.0' is not assembly or resource"),
    ("assembly::a--b::1.0", "descriptor name 'a--b' must start with a letter, end with a letter "
     "or digit, and hold only letters, digits, '.', and non-consecutive '_' and '-'"),
    ("assembly::ab_::1.0", "descriptor name 'ab_' must start with a letter, end with a letter "
     "or digit, and hold only letters, digits, '.', and non-consecutive '_' and '-'"),
    ("assembly::" + "a" * 51 + "::1.0", f"descriptor name '{'a' * 51}' is longer than 50 "
     "characters"),
    ("assembly::ab::1.0-rc", "descriptor version '1.0-rc' is not dot-separated numbers"),
])
def test_invalid_descriptor_names(name: str, problem: str) -> None:
    assert descriptor_name_problem(name) == problem


@pytest.mark.parametrize("name,problem", [
    ("demo", None), ("my-demo_2", None), ("a b", "assembly instance name 'a b' contains a space"),
    ("2x", "assembly instance name '2x' starts with a digit")])
def test_instance_names(name: str, problem: str | None) -> None:
    assert instance_name_problem(name) == problem


@pytest.mark.parametrize("wanted,version,matches", [
    ("1.0", "1.0", True), ("1.0", "1.0.0", False), ("^1.0", "1.9", True), ("^1.2", "1.1", False),
    ("^1.0", "2.0", False), ("[1.0,2.0)", "1.10", True), ("[1.0,2.0)", "2.0", False),
    ("[1.0,)", "7.3", True), ("(,1.5)", "1.5", False), ("(,1.5)", "1.4.9", True),
    ("[1.1,1.9]", "1.9", True), ("[1.1,1.9]", "1.0", False), ("[1.0", "1.0", False)])
def test_version_matching(wanted: str, version: str, matches: bool) -> None:
    assert version_matches(wanted, version) is matches


def test_resolve_version_takes_the_highest_numerically() -> None:
    catalog = Catalog([CATALOG])
    assert catalog.resolve_version("resource::t.server::[1.0,2.0)") == "resource::t.server::1.10"
    assert catalog.resolve_version("resource::t.server::[1.0,)") == "resource::t.server::2.0"
    assert catalog.matching("resource::t.server::^1.0") == [
        "resource::t.server::1.0", "resource::t.server::1.10", "resource::t.server::1.9"]


def test_the_catalog_finds_lmctl_packages() -> None:
    catalog = Catalog([CATALOG])
    server = catalog.get("resource::t.server::1.0")
    assert server.package == (CATALOG / "t.server-1.0").resolve()
    assert server.lifecycle == ("Create", "Install", "Configure", "Start", "Stop", "Uninstall",
                                "Delete", "Reconfigure")
    assert catalog.get("resource::t.healer::1.0").lifecycle == (
        "Install", "Start", "Integrity", "Stop", "Uninstall", "Heal")


def test_dynamic_type_renders_in_the_sandbox() -> None:
    catalog = Catalog([CATALOG])
    template = "{% if k == 'a' %} {{ 'resource::t.server::[1.0,1.9]'|resolveVersion }} " \
               "{% else %} resource::x::1.0 {% endif %}"
    assert render_dynamic_type(template, {"k": "a"}, catalog, None) == "resource::t.server::1.9"
    assert render_dynamic_type(template, {"k": "b"}, catalog, None) == "resource::x::1.0"
    with pytest.raises(e.DescriptorError) as raised:
        render_dynamic_type("{{ ''.__class__.__mro__ }}", {}, catalog, None)
    assert raised.value.kind == e.INVALID_DESCRIPTOR
