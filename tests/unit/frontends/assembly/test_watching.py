"""What an assembly asks of watching (docs/DESCRIPTORS.md, "Watching"): its
``autoHeal`` and ``integrityPeriod`` properties, checked before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.assembly import AssemblyFrontend
from laguna.frontends.assembly.watching import DEFAULT_PERIOD, Settings, settings_of

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
