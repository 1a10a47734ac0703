"""The built-in TOSCA and assembly front ends are imported when a blueprint of
theirs is first met, not when the CLI or the API registers them."""

from __future__ import annotations

import os
import subprocess
import sys
import typing as t
from pathlib import Path

import pytest

from laguna.deploy.context import StoredState
from laguna.deploy.errors import Rejected
from laguna.deploy.frontend import Frontend, FrontendRegistry
from laguna.deploy.owner import ProcessOwner
from laguna.deploy.result import Action
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends import builtin_frontends
from laguna.frontends.deferred import DeferredFrontend
from tests.unit.deploy.fakes import WEB, WEB_DEPLOYED, FakeFrontend, Ticker, write_blueprint

SRC = Path(__file__).parents[3] / "src"
EXAMPLES = Path(__file__).parents[3] / "examples"


class Loads:
    """A front end factory that counts its calls."""

    def __init__(self, frontend: t.Any) -> None:
        self.frontend = frontend
        self.count = 0

    def __call__(self) -> Frontend:
        self.count += 1
        return t.cast(Frontend, self.frontend)


def test_registering_the_built_in_front_ends_imports_neither_tosca_nor_assembly(
        tmp_path: Path) -> None:
    model = tmp_path / "model.yaml"
    model.write_text("Objects: {}\n")
    program = (
        "import sys; from pathlib import Path; "
        "from laguna.deploy.frontend import FrontendRegistry; "
        "from laguna.frontends import builtin_frontends; "
        "registry = FrontendRegistry(builtin_frontends()); "
        f"print(registry.languages, registry.recognise(Path({str(model)!r})).language); "
        "print(sorted(m for m in sys.modules if m.startswith("
        "('laguna.frontends.tosca', 'laguna.frontends.assembly'))))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert (done.returncode, done.stderr, done.stdout) == (
        0, "", "['tosca', 'assembly', 'muranopl'] muranopl\n[]\n")


@pytest.mark.parametrize(("text", "language"), [
    ("tosca_definitions_version: tosca_simple_yaml_1_3\n", "tosca"),
    ("name: assembly::shop::1.0\n", "assembly"),
    ("Objects:\n  ?: {id: a, type: com.example.App}\n", "muranopl"),
])
def test_built_in_front_ends_recognise_their_blueprints(
        tmp_path: Path, text: str, language: str) -> None:
    path = tmp_path / "blueprint.yaml"
    path.write_text(text)
    found = FrontendRegistry(builtin_frontends()).recognise(path)
    assert found is not None and found.language == language


def test_a_deferred_front_end_recognises_without_loading(tmp_path: Path) -> None:
    loads = Loads(FakeFrontend())
    deferred = DeferredFrontend("fake", lambda path: path.suffix == ".fake", loads)
    assert isinstance(deferred, Frontend)
    assert (deferred.recognises(tmp_path / "a.fake"), deferred.recognises(tmp_path / "a.yaml"),
            loads.count) == (True, False, 0)
    assert repr(deferred) == "<DeferredFrontend fake (not loaded yet)>"


def test_a_deferred_front_end_loads_once_and_deploys_as_the_real_one(tmp_path: Path) -> None:
    real = FakeFrontend()
    loads = Loads(real)
    deferred = DeferredFrontend("fake", real.recognises, loads)
    service = Service(Workdir(tmp_path / "wd"), FrontendRegistry([deferred]), clock=Ticker(),
                      owner=ProcessOwner("here", 100, "1"))
    result = service.deploy(write_blueprint(tmp_path, "shop", components=[WEB]))
    assert result.to_json() == WEB_DEPLOYED
    assert service.undeploy("shop").status == "ok"
    assert (loads.count, real.calls) == (1, ["deploy", "undeploy"])
    assert repr(deferred) == "<DeferredFrontend fake (loaded)>"


def test_a_deferred_front_end_of_another_language_is_refused() -> None:
    deferred = DeferredFrontend("tosca", lambda path: True, Loads(FakeFrontend()))
    with pytest.raises(TypeError, match=r"^the front end registered as 'tosca' is 'fake'$"):
        deferred.loaded


class Lists(FakeFrontend):
    """A fake front end that lists one action of each of its components."""

    def actions(self, stored: StoredState, state_dir: Path) -> list[Action]:
        return [Action(c["id"], c["name"], c["type"], "scale")
                for c in (stored.model or {}).get("components", [])]


def test_a_deferred_front_end_checks_actions_as_the_one_it_loads(tmp_path: Path) -> None:
    stored = StoredState("e1", "shop", "local", model={"components": [WEB]})
    listing = DeferredFrontend("fake", lambda path: False, Loads(Lists()))
    assert [a.name for a in listing.actions(stored, tmp_path) or []] == ["scale"]
    assert listing.check_action(stored, tmp_path, "web", "scale", {}) == "web1"
    with pytest.raises(Rejected) as refused:
        listing.check_action(stored, tmp_path, "web", "grow", {})
    assert (refused.value.kind, refused.value.message) == (
        "action_not_found", "web (Web) has no action 'grow'; its actions: scale")
    silent = DeferredFrontend("fake", lambda path: False, Loads(FakeFrontend()))
    assert silent.actions(stored, tmp_path) is None
    assert silent.check_action(stored, tmp_path, "web", "grow", {}) == "web"
