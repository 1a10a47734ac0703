"""``laguna status`` and ``laguna environments`` read the store with sqlite3
(laguna.deploy.readonly) when they can: the same output as the service's
path, byte for byte, on the same stores; the service's path whenever the
store needs it (an older schema, a held environment, actions not kept for
the stored state); and no SQLAlchemy, store models or language imported."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.cli.workdirs import Wiring
from laguna.deploy import readonly
from laguna.deploy.frontend import FrontendRegistry
from laguna.deploy.result import Result
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.muranopl import MuranoPlFrontend
from laguna.store.db import HEAD_REVISION, downgrade
from laguna.store.names import HEAD_REVISION as NAMED_REVISION

from unit.cli.test_muranopl_commands import (
    recording,
    write_model,
    write_package,
)
from unit.deploy.fakes import Ticker

SRC = Path(__file__).parents[3] / "src"

FAILING = """\
Namespaces:
  =: com.example
  std: io.murano
Name: Failing
Extends: std:Application
Methods:
  deploy:
    Body:
      - Throw: com.example.Broken
        Message: it broke
  retry:
    Scope: Public
    Arguments:
      - times:
          Contract: $.int()
    Body:
      - Return: $times
"""

#: every way each command prints
STATUS_FORMATS = ((), ("--json",))
LIST_FORMATS = ((), ("--json",), ("-o", "json"), ("-o", "yaml"))


@pytest.fixture()
def wiring() -> Wiring:
    return Wiring(FrontendRegistry([MuranoPlFrontend()]), resources=recording, clock=Ticker())


def run(wiring: Wiring, workdir: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["--workdir", str(workdir), *args], obj=wiring)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def many(wiring: Wiring, tmp_path: Path) -> Path:
    """A working directory of several environments: ``hello`` (two greeters, one
    action run since its deploy), ``broken`` (a failed deploy of an object with
    actions), ``gone`` (undeployed) and ``plain`` (one greeter)."""
    greeter = write_package(tmp_path)
    failing = write_package(tmp_path, "Failing", FAILING)
    model = write_model(tmp_path, ("first", "second"))

    def ok(*args: str) -> None:
        code, out, err = run(wiring, tmp_path, *args)
        assert code == 0, out + err

    ok("deploy", str(model), "-l", str(greeter), "--name", "hello", "--json")
    ok("action", "hello", "first", "greet", "--arg", "who=you", "--json")
    ok("deploy", str(model), "-l", str(greeter), "--name", "gone", "--json")
    ok("undeploy", "gone", "--json")
    ok("deploy", str(write_model(tmp_path)), "-l", str(greeter), "--name", "plain", "--json")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([{"?": {"id": "3" * 32, "type": "com.example.Failing"}}]))
    code, out, err = run(wiring, tmp_path, "deploy", str(broken), "-l", str(failing), "--json")
    assert code == 1, out + err
    return tmp_path


NAMES = ("hello", "broken", "gone", "plain", "nope")


def slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands without their fast path: the service answers."""
    monkeypatch.setattr("laguna.cli.commands.status.read_status", lambda *_a: None)
    monkeypatch.setattr("laguna.cli.commands.environments.read_environments",
                        lambda *_a: None)


def outputs(wiring: Wiring, workdir: Path) -> dict[tuple[str, ...], tuple[int, str, str]]:
    printed = {}
    for name in NAMES:
        for options in STATUS_FORMATS:
            printed[("status", name, *options)] = run(wiring, workdir, "status", name, *options)
        printed[("status", name, "--check")] = run(wiring, workdir, "status", name, "--check")
    for options in LIST_FORMATS:
        printed[("environments", *options)] = run(wiring, workdir, "environments", *options)
    return printed


def change_store(workdir: Path, sql: str) -> None:
    """``sql`` run on the working directory's store, committed."""
    store = sqlite3.connect(Workdir(workdir).store_path)
    with store:
        store.execute(sql)
    store.close()


def service(wiring: Wiring, workdir: Path) -> Service:
    return Service(Workdir(workdir), wiring.frontends, resources=wiring.resources,
                   clock=wiring.clock)


def test_both_paths_print_the_same(wiring: Wiring, many: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    workdir = Workdir(many)
    # the fast path answers every one of them
    for name in NAMES:
        assert readonly.read_status(workdir, name) is not None, name
    assert readonly.read_environments(workdir) is not None
    fast = outputs(wiring, many)
    slow(monkeypatch)
    assert outputs(wiring, many) == fast
    # what the stores hold is shown (not an empty store twice)
    assert json.loads(fast[("environments", "--json")][1])["environments"][0]["name"] == "broken"
    assert [line.split()[0] for line in fast[("status", "hello")][1].splitlines()
            if line.startswith(("greet ", "deploy "))] == ["deploy", "greet", "greet"]
    broken = json.loads(fast[("status", "broken", "--json")][1])
    assert (broken["status"], [a["name"] for a in broken["actions"]]) == (
        "failed", ["deploy", "retry"])
    assert fast[("status", "broken", "--check")][0] == 1
    assert fast[("status", "nope")][0] == 2


def test_both_paths_give_equal_results(wiring: Wiring, many: Path) -> None:
    workdir = Workdir(many)
    by_service = service(wiring, many)
    for name in NAMES:
        fast = readonly.read_status(workdir, name)
        assert isinstance(fast, Result)
        assert fast == by_service.status(name), name
        assert fast.to_json() == by_service.status(name).to_json()
    listed = readonly.read_environments(workdir)
    assert listed is not None
    assert listed == by_service.environments()


def test_no_store_is_read_without_making_one(wiring: Wiring, tmp_path: Path) -> None:
    workdir = Workdir(tmp_path)
    assert readonly.read_environments(workdir) == service(wiring, tmp_path).environments()
    assert readonly.read_status(workdir, "x") == service(wiring, tmp_path).status("x")
    assert run(wiring, tmp_path, "environments", "--json") == (
        0, '{\n  "environments": []\n}\n', "")
    assert run(wiring, tmp_path, "status", "x") == (
        2, "", "error[LAG-E1002]: no environment named 'x' [environment_not_found]\n")
    assert list(tmp_path.iterdir()) == []


def test_a_read_leaves_no_file_behind(wiring: Wiring, many: Path) -> None:
    state = Workdir(many).state_dir
    before = sorted(path.name for path in state.iterdir())
    assert run(wiring, many, "status", "hello")[0] == 0
    assert run(wiring, many, "environments")[0] == 0
    assert sorted(path.name for path in state.iterdir()) == before


def test_an_older_store_is_read_by_the_service(wiring: Wiring, many: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A store of the revision before the kept actions: the service migrates it;
    then environments read fast, and status through the service until a run
    keeps the actions of the environment again."""
    workdir = Workdir(many)
    expected = outputs(wiring, many)
    downgrade(workdir.url, "0004")
    assert readonly.read_environments(workdir) is None
    assert readonly.read_status(workdir, "hello") is None
    assert run(wiring, many, "status", "hello") == expected[("status", "hello")]
    assert readonly.read_environments(workdir) is not None
    assert readonly.read_status(workdir, "hello") is None       # actions not kept
    assert readonly.read_status(workdir, "gone") is not None    # nothing deployed
    assert outputs(wiring, many) == expected
    assert run(wiring, many, "deploy", str(write_model(many, ("first", "second"))),
               "--name", "hello", "--json")[0] == 0
    assert readonly.read_status(workdir, "hello") is not None


def test_a_held_environment_is_left_to_the_service(wiring: Wiring, many: Path) -> None:
    """A deployment holds it: the service finds whether its process died (recovery
    writes), as before."""
    change_store(many, "UPDATE environments SET acquired_by = 'x' WHERE name = 'plain'")
    assert readonly.read_status(Workdir(many), "plain") is None
    assert readonly.read_status(Workdir(many), "hello") is not None
    assert readonly.read_environments(Workdir(many)) is None


def test_kept_actions_follow_the_stored_packages(wiring: Wiring, many: Path) -> None:
    """A package rewritten in the store (or added by a run that died) is not
    what the kept list was made from: the service lists the actions."""
    change_store(many, "UPDATE environment_packages SET archive = archive || x'00'")
    assert readonly.read_status(Workdir(many), "hello") is None
    assert readonly.read_status(Workdir(many), "gone") is not None


def test_a_store_the_reader_does_not_know_is_left_to_the_service(wiring: Wiring,
                                                                 many: Path) -> None:
    """A column the reader names that is not there (the models and the reader's SQL
    drifted apart), or one of a type it cannot decode: None, never a guess."""
    change_store(many, "ALTER TABLE status_reports RENAME COLUMN entity_id TO entity")
    assert readonly.read_status(Workdir(many), "hello") is None
    assert readonly.read_environments(Workdir(many)) is not None


def test_the_revision_is_the_stores_own() -> None:
    assert NAMED_REVISION == HEAD_REVISION


@pytest.mark.parametrize("command", [["status", "hello"], ["status", "hello", "--json"],
                                     ["environments"], ["environments", "-o", "json"],
                                     ["environments", "-o", "yaml"]])
def test_the_reads_import_no_store_models_nor_language(many: Path, command: list[str]) -> None:
    """Nor rich for JSON and YAML: only the tables need it."""
    heavy = ("sqlalchemy", "alembic", "yaql") + (("rich",) if "-o" in command or
                                                 "--json" in command else ())
    probe = (
        "import sys\n"
        "from laguna.cli.main import cli\n"
        f"try:\n    cli({['--workdir', str(many), *command]!r})\nexcept SystemExit:\n    pass\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} "
        "or m.startswith(('laguna.lang', 'laguna.store.models', 'laguna.deploy.service', "
        "'laguna.frontends')))\n"
        "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60, env={"PYTHONPATH": str(SRC)})
    assert done.stdout.splitlines()[-1] == "LOADED []", done.stderr
    assert "hello" in done.stdout
