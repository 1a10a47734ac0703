"""What an assembly asks of watching (docs/DESCRIPTORS.md, "Watching"): its
``autoHeal`` and ``integrityPeriod`` properties, checked before anything runs."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.assembly import AssemblyFrontend
from laguna.frontends.assembly.watching import DEFAULT_PERIOD, Settings, settings_of

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
WATCHED = Path(__file__).parents[3] / "e2e" / "assembly_watch"


@pytest.mark.parametrize(("properties", "settings"), [
    ({}, Settings(False, DEFAULT_PERIOD)),
    ({"autoHeal": True, "integrityPeriod": 5}, Settings(True, 5.0)),
    ({"autoHeal": "TRUE", "integrityPeriod": "2.5"}, Settings(True, 2.5)),
    ({"autoHeal": "false", "integrityPeriod": None}, Settings(False, DEFAULT_PERIOD)),
])
def test_settings_from_the_assembly_properties(properties: dict[str, object],
                                               settings: Settings) -> None:
    assert settings_of(properties) == settings


@pytest.mark.parametrize(("properties", "message"), [
    ({"autoHeal": "yes"}, "property autoHeal must be true or false, not 'yes'"),
    ({"integrityPeriod": 0},
     "property integrityPeriod must be a number of seconds above 0, not 0"),
    ({"integrityPeriod": "1m"},
     "property integrityPeriod must be a number of seconds above 0, not '1m'"),
    ({"integrityPeriod": True},
     "property integrityPeriod must be a number of seconds above 0, not True"),
])
def test_values_watching_cannot_use_are_refused(properties: dict[str, object],
                                                message: str) -> None:
    with pytest.raises(ValueError) as raised:
        settings_of(properties)
    assert str(raised.value) == message


def test_a_deploy_with_a_period_watching_cannot_use_is_rejected(tmp_path: Path) -> None:
    service = Service(Workdir(tmp_path), FrontendRegistry([AssemblyFrontend()]))
    result = service.deploy(WATCHED / "watched.yaml", PrepareOptions(
        libs=(WATCHED,), name="w", settings={"integrityPeriod": "-3"}))
    assert result.status == "rejected"
    assert result.error is not None
    assert (result.error.kind, result.error.message) == (
        "invalid_property_value", "assembly::e2e.watched::1.0: property integrityPeriod "
        "must be a number of seconds above 0, not -3")
    assert not (tmp_path / "daemons").exists()     # nothing ran


STUBBORN = Path(__file__).with_name("watch_catalog")


def test_a_heal_that_fails_leaves_the_instance_broken_with_why(tmp_path: Path) -> None:
    """Real scripts: the check fails once the instance's mark is gone; its Heal
    fails too; the instance stays Broken, the heal's failure its condition, and
    later passes do not check or heal it again."""
    clock = [NOW]
    service = Service(Workdir(tmp_path), FrontendRegistry([AssemblyFrontend()]),
                      clock=lambda: clock[0])
    deployed = service.deploy(STUBBORN / "stubborn.yaml", PrepareOptions(
        libs=(STUBBORN,), name="w"))
    assert deployed.status == "ok", deployed.error
    result, due = service.watch("w")
    assert (result.reports, due) == ([], NOW + datetime.timedelta(seconds=10))
    (tmp_path / "w__s.ok").unlink()
    clock[0] = NOW + datetime.timedelta(seconds=10)
    result, due = service.watch("w")
    assert [(r.level, r.text) for r in result.reports] == [
        ("info", "Integrity w__s"),
        ("error", "Integrity of w__s exited with 2: w__s is Broken: no mark for w__s"),
        ("info", "w__s: healing (autoHeal)"),
        ("info", "Heal w__s"),
        ("error", "heal of w__s failed: Heal of w__s exited with 1")]
    assert due is None      # nothing Active is left to check
    component = result.components["w__s"]
    assert (component.state, component.details["condition"]) == ("Broken", {
        "time": "2026-01-01T00:00:10.000000Z", "text": "heal failed: Heal of w__s exited with 1",
        "output": "cannot heal w__s"})
    assert (result.status, result.state) == ("ok", "ready")
    clock[0] = NOW + datetime.timedelta(seconds=30)
    result, due = service.watch("w")
    assert (result.reports, result.components["w__s"].state) == ([], "Broken")
    assert service.undeploy("w").status == "ok"
