"""Plan parsing and checking: exact values, exact messages and murano-agent's error codes."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from laguna.agent.errors import PlanError
from laguna.agent.plan import (
    Command,
    PlanFile,
    PlanV1,
    PlanV2,
    Script,
    ScriptOptions,
    parse_plan,
)


def v2(**changes: Any) -> dict[str, Any]:
    plan: dict[str, Any] = {
        "FormatVersion": "2.1.0", "ID": "p1", "Body": "return deploy(args.appName).stdout",
        "Parameters": {"appName": "tomcat"},
        "Files": {"ID1": {"Name": "deployTomcat.sh", "BodyType": "Text", "Body": "echo hi"},
                  "ID2": {"Name": "lib/common.sh", "BodyType": "Base64",
                          "Body": "dGV4dA==\n"}},
        "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "ID1", "Files": ["ID2"],
                               "Options": {"captureStderr": False}}},
    }
    plan.update(changes)
    return plan


def rejected(plan: Any) -> tuple[str, int]:
    with pytest.raises(PlanError) as info:
        parse_plan(plan)
    return info.value.message, info.value.error_code


def test_v2_plan_becomes_values() -> None:
    plan = parse_plan(v2())
    assert isinstance(plan, PlanV2)
    assert (plan.plan_id, plan.format_version, plan.parameters) == (
        "p1", "2.1.0", {"appName": "tomcat"})
    assert plan.files == {"ID1": PlanFile("ID1", "deployTomcat.sh", b"echo hi"),
                          "ID2": PlanFile("ID2", "lib/common.sh", b"text")}
    assert plan.scripts == {"deploy": Script("deploy", "ID1", ("ID2",), ScriptOptions(
        capture_stdout=True, capture_stderr=False, verify_exitcode=True))}
    assert plan.body.source == "return deploy(args.appName).stdout"


def test_base64_body_keeps_non_utf8_bytes() -> None:
    raw = bytes(range(256))
    plan = parse_plan(v2(Files={"ID1": {"Name": "blob", "BodyType": "Base64",
                                        "Body": base64.b64encode(raw).decode() + "\n"}},
                         Scripts={}))
    assert isinstance(plan, PlanV2)
    assert plan.files["ID1"].content == raw


def test_plan_without_id_gets_a_new_one() -> None:
    raw = v2()
    del raw["ID"]
    assert parse_plan(raw, lambda: "new-id").plan_id == "new-id"


def test_wait_ready_plan_of_the_original_engine_is_accepted() -> None:
    plan = parse_plan({"Body": "return", "FormatVersion": "2.0.0", "Scripts": {}}, lambda: "x")
    assert isinstance(plan, PlanV2)
    assert (plan.files, plan.scripts) == ({}, {})


@pytest.mark.parametrize("name", ["../evil.sh", "a/../../evil.sh", "/etc/passwd", "a//b", ""])
def test_file_names_leaving_the_plan_directory_are_refused(name: str) -> None:
    files = {"ID1": {"Name": name, "BodyType": "Text", "Body": "x"}}
    assert rejected(v2(Files=files, Scripts={})) == (
        f"File ID1 has name {name!r}, which leaves the plan directory", 2)


@pytest.mark.parametrize(("changes", "message"), [
    ({"ID": "../p"}, "Plan ID '../p' is not a plain file name"),
    ({"Files": {"a/b": {"Name": "x", "BodyType": "Text", "Body": ""}}, "Scripts": {}},
     "File id 'a/b' is not a plain file name"),
    ({"Scripts": {"..": {"Type": "Application", "EntryPoint": "ID1"}}},
     "Script name '..' is not a plain file name"),
])
def test_ids_and_script_names_must_be_plain_names(changes: dict[str, Any], message: str) -> None:
    assert rejected(v2(**changes)) == (message, 2)


@pytest.mark.parametrize(("changes", "message", "code"), [
    ({"FormatVersion": "3.0.0"}, "Unsupported format version 3.0.0 (I support versions <=2.2.0)",
     9),
    ({"FormatVersion": "2.x"}, "Invalid FormatVersion '2.x'", 9),
    ({"Scripts": []}, "Scripts is not a dictionary", 2),
    ({"Files": {"ID1": {"Name": "a", "BodyType": "Gzip", "Body": ""}}},
     "Incorrect BodyType in file ID1", 2),
    ({"Files": {"ID1": {"Name": "a", "Body": ""}}}, "Incorrect BodyType entry in file ID1", 2),
    ({"Files": {"ID1": {"Name": "a", "BodyType": "Base64", "Body": "!!"}}, "Scripts": {}},
     "Body of file ID1 is not valid Base64: Only base64 data is allowed", 2),
    ({"Files": {"ID1": {"Name": "a", "Type": "Downloadable", "URL": "http://x/a"}}},
     "File ID1 is Downloadable (http://x/a); laguna-agent does not download files", 2),
    ({"Scripts": {"deploy": {"Type": "Application", "EntryPoint": "ID9"}}},
     "Script deploy misses entry point ID9", 2),
    ({"Scripts": {"deploy": {"Type": "Application", "EntryPoint": "ID1", "Files": ["ID9"]}}},
     "Script deploy misses file ID9", 2),
    ({"Scripts": {"deploy": {"Type": "Chef", "EntryPoint": "cookbook::recipe"}}},
     "Script deploy has Type Chef; laguna-agent runs only Type Application scripts", 2),
    ({"Scripts": {"deploy": {"Type": "Ansible", "EntryPoint": "ID1"}}},
     "Script has not a valid type Ansible", 2),
    ({"Scripts": {"deploy": {"EntryPoint": "ID1"}}}, "Incorrect Type entry in script deploy", 2),
    ({"Body": None}, "Body is not a string", 2),
    ({"Body": "import os"}, "Body line 1: Import statements are not supported (laguna runs a "
     "restricted Body, see docs/AGENT.md)", 2),
])
def test_malformed_v2_plans_are_refused(changes: dict[str, Any], message: str,
                                        code: int) -> None:
    assert rejected(v2(**changes)) == (message, code)


def test_plan_must_be_an_object() -> None:
    assert rejected(["Scripts"]) == ("The execution plan is not a JSON object", 2)


def test_v1_plan_becomes_values() -> None:
    plan = parse_plan({"Scripts": [base64.b64encode(b"f() { echo $1; }").decode()],
                       "Commands": [{"Name": "f", "Arguments": {"x": 1}}, {"Name": "date"}],
                       "RebootOnCompletion": 0, "Stamp": 5}, lambda: "v1-id")
    assert plan == PlanV1("v1-id", (b"f() { echo $1; }",),
                          (Command("f", {"x": 1}), Command("date", {})))


@pytest.mark.parametrize(("plan", "message"), [
    ({"Scripts": "x"}, "Scripts of a v1 plan is not a list"),
    ({"Scripts": ["%%%"]}, "Script #0 of a v1 plan is not valid Base64: Only base64 data is "
     "allowed"),
    ({"FormatVersion": "1.0.0", "Commands": [{"Arguments": {}}]},
     "Command #0 of a v1 plan has no Name"),
])
def test_malformed_v1_plans_are_refused(plan: dict[str, Any], message: str) -> None:
    assert rejected(plan) == (message, 2)
