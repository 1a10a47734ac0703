"""The front-end registry, error kinds and the owner liveness check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from laguna.deploy import errors
from laguna.deploy.frontend import Frontend, FrontendRegistry
from laguna.deploy.owner import ProcessLiveness, ProcessOwner, current_owner, process_start

from .fakes import FakeFrontend


class OtherFrontend(FakeFrontend):
    language = "other"


def test_registry_recognises_in_registration_order(tmp_path: Path) -> None:
    fake, other = FakeFrontend(), OtherFrontend()
    registry = FrontendRegistry([other, fake])
    assert registry.languages == ["other", "fake"]
    assert registry.recognise(tmp_path / "x.fake") is other
    assert registry.recognise(tmp_path / "x.yaml") is None
    assert registry.get("fake") is fake


def test_registry_refuses_a_language_twice() -> None:
    registry = FrontendRegistry([FakeFrontend()])
    with pytest.raises(ValueError, match="^a front end for 'fake' is already registered$"):
        registry.register(FakeFrontend())


def test_fake_frontend_satisfies_the_protocol() -> None:
    assert isinstance(FakeFrontend(), Frontend)


def test_error_kinds_are_snake_case() -> None:
    assert all(errors.check_kind(kind) == kind for kind in errors.KINDS)
    with pytest.raises(ValueError, match="^error kind 'Bad-Kind' is not snake_case$"):
        errors.DeployError("Bad-Kind", "x")


def test_liveness_of_this_process_and_a_reaped_one() -> None:
    liveness = ProcessLiveness()
    me = current_owner()
    assert liveness.alive(me)
    assert not liveness.alive(ProcessOwner(me.host, me.pid, "1"))  # the pid was reused
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not liveness.alive(ProcessOwner(me.host, child.pid, process_start(os.getpid())))
    assert liveness.alive(ProcessOwner("elsewhere", child.pid, ""))
