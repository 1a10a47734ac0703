"""The API's refusal of an upload, as the import page lists it: one problem
an item (laguna.dashboard.catalog.problems_of)."""

from __future__ import annotations

from laguna.dashboard.catalog import problems_of


def test_a_package_s_problems_one_an_item() -> None:
    assert problems_of(
        "Couldn't load package from file: Classes/A.yaml:2:1: error[LAG-E0242]: class A: "
        "Extends names class B; which is not found; manifest.yaml:7:3: error[LAG-E0531]: "
        "file 'x' does not exist; error[LAG-E0510]: no FullName") == (
        "Couldn't load package from file:", [
            "Classes/A.yaml:2:1: error[LAG-E0242]: class A: Extends names class B; which is "
            "not found",
            "manifest.yaml:7:3: error[LAG-E0531]: file 'x' does not exist",
            "error[LAG-E0510]: no FullName"])


def test_a_csar_s_problems() -> None:
    assert problems_of(
        "Couldn't load package from file: CSAR refused: service.yaml:6:13: error[LAG-E1503]: "
        "node hello: unknown node type; service.yaml:9:1: error[LAG-E1503]: node x: y") == (
        "Couldn't load package from file: CSAR refused:", [
            "service.yaml:6:13: error[LAG-E1503]: node hello: unknown node type",
            "service.yaml:9:1: error[LAG-E1503]: node x: y"])


def test_other_refusals_as_they_are() -> None:
    assert problems_of("Package with specified full name is already registered") == (
        "Package with specified full name is already registered", [])
