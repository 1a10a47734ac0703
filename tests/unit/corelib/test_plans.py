"""Execution plans built from templates and a package's Resources (Agent.call)."""

from __future__ import annotations

import base64
import itertools

import pytest

from laguna.corelib.agent import PlanBuilder
from laguna.corelib.resources import PackageFiles

BLOB = bytes(range(256)) + b"\r\n\x00"
FILES = {
    "Resources/scripts/deploy.sh": b"#!/bin/sh\necho deploy\n",
    "Resources/scripts/common.sh": b"common\r\n",
    "Resources/scripts/blob.bin": BLOB,
    "Resources/scripts/setup.ps1": b"Write-Host 1\n",
}


def files() -> PackageFiles:
    return PackageFiles(lambda path: FILES[path], "test.package")


def builder() -> PlanBuilder:
    ids = (f"id{n}" for n in itertools.count(1))
    return PlanBuilder(new_id=lambda: next(ids), clock=lambda: 100.0)


def test_v2_plan_places_entry_point_and_files() -> None:
    template = {
        "FormatVersion": "2.0.0", "Version": "1.0.0", "Name": "Deploy",
        "Parameters": {"appName": "x"}, "Body": "return deploy(args.appName).stdout",
        "Scripts": {"deploy": {"Type": "Application", "Version": "1.0.0",
                               "EntryPoint": "deploy.sh",
                               "Files": ["common.sh", "<blob.bin>",
                                         "https://example.org/pkg/tool.tgz",
                                         {"cookbook": "git://example.org/repo.git"}],
                               "Options": {"captureStdout": True}}},
    }
    plan = builder().build(template, files())
    assert plan == {
        "FormatVersion": "2.0.0", "Version": "1.0.0", "Name": "Deploy",
        "Parameters": {"appName": "x"}, "Body": "return deploy(args.appName).stdout",
        "ID": "id1", "Stamp": 1000000, "Action": "Execute",
        "Files": {
            "id2": {"Name": "deploy.sh", "BodyType": "Text", "Body": "#!/bin/sh\necho deploy\n"},
            "id3": {"Name": "common.sh", "BodyType": "Text", "Body": "common\n"},
            "id4": {"Name": "blob.bin", "BodyType": "Base64",
                    "Body": base64.b64encode(BLOB).decode("ascii") + "\n"},
            "id5": {"Name": "tool.tgz", "URL": "https://example.org/pkg/tool.tgz",
                    "Type": "Downloadable"},
            "id6": {"Name": "cookbook", "URL": "git://example.org/repo.git",
                    "Type": "Downloadable"},
        },
        "Scripts": {"deploy": {"Type": "Application", "Version": "1.0.0", "EntryPoint": "id2",
                               "Files": ["id3", "id4", "id5", "id6"],
                               "Options": {"captureStdout": True}}},
    }


def test_v2_binary_file_is_byte_exact() -> None:
    template = {"FormatVersion": "2.1.0", "Body": "return",
                "Scripts": {"s": {"Type": "Application", "EntryPoint": "<blob.bin>"}}}
    plan = builder().build(template, files())
    body = plan["Files"][plan["Scripts"]["s"]["EntryPoint"]]["Body"]
    assert base64.b64decode(body) == BLOB


def test_v2_reuses_files_the_template_declares() -> None:
    template = {"FormatVersion": "2.0.0", "Body": "return",
                "Files": {"mine": {"Name": "deploy.sh", "BodyType": "Text", "Body": "x"}},
                "Scripts": {"s": {"Type": "Application", "EntryPoint": "deploy.sh",
                                  "Files": ["deploy.sh"]}}}
    plan = builder().build(template, files())
    assert plan["Scripts"]["s"] == {"Type": "Application", "EntryPoint": "mine",
                                    "Files": ["mine"]}
    assert list(plan["Files"]) == ["mine"]


def test_v2_chef_entry_point_is_not_a_file() -> None:
    template = {"FormatVersion": "2.1.0", "Body": "return",
                "Scripts": {"s": {"Type": "Chef", "EntryPoint": "git::default"}}}
    plan = builder().build(template, files())
    assert plan["Scripts"]["s"]["EntryPoint"] == "git::default"
    assert plan["Files"] == {}


def test_v2_script_without_entry_point_is_refused() -> None:
    with pytest.raises(ValueError, match="No entry point in script s"):
        builder().build({"FormatVersion": "2.0.0", "Scripts": {"s": {"Type": "Application"}}},
                        files())


def test_v1_plan_inlines_scripts_as_base64() -> None:
    template = {"Scripts": ["setup.ps1", "blob.bin"],
                "Commands": [{"Name": "Setup", "Arguments": {}}], "RebootOnCompletion": 0}
    plan = builder().build(template, files())
    assert plan == {"Scripts": [base64.b64encode(b"Write-Host 1\n").decode("ascii"),
                                base64.b64encode(BLOB).decode("ascii")],
                    "Commands": [{"Name": "Setup", "Arguments": {}}],
                    "RebootOnCompletion": 0, "Stamp": 1000000}


def test_stamps_increase_within_one_clock_tick() -> None:
    plans = builder()
    first = plans.build({"Scripts": []}, files())["Stamp"]
    second = plans.build({"Scripts": []}, files())["Stamp"]
    assert second == first + 1


def test_template_is_not_modified() -> None:
    template = {"FormatVersion": "2.0.0",
                "Scripts": {"s": {"Type": "Application", "EntryPoint": "deploy.sh"}}}
    builder().build(template, files())
    assert template == {"FormatVersion": "2.0.0",
                        "Scripts": {"s": {"Type": "Application", "EntryPoint": "deploy.sh"}}}
