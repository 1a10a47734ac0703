"""The host layer's one way to a host: a script (or a file) in a plan of the one
plan builder, run by a real agent's executor on this machine."""

from __future__ import annotations

import base64
import typing as t
from pathlib import Path

import pytest

from laguna.agent.executor import PlanExecutor
from laguna.agent.transport import RecordingAgent, Track
from laguna.cloud.base import Host
from laguna.hosts.drift import working_on
from laguna.hosts.errors import HostUnavailable, ScriptError
from laguna.hosts.plans import PlanBuilder, script_plan
from laguna.hosts.resources import agent_client
from laguna.hosts.run import Machine, put_file, run_script


class LocalAgent:
    """An AgentTransport that runs plans with the agent's own executor, in-process."""

    def __init__(self, root: Path) -> None:
        self.executor = PlanExecutor(root, {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                                            "HOME": str(root)})
        self.plans: list[dict[str, t.Any]] = []
        self.tracks: list[Track | None] = []

    def health(self) -> dict[str, t.Any]:
        return {"name": "local", "status": "ready"}

    def execute(self, plan: dict[str, t.Any], timeout: float, *,
                track: Track | None = None) -> dict[str, t.Any]:
        self.plans.append(plan)
        self.tracks.append(track)
        return self.executor.execute(plan, timeout, track.component if track else None,
                                     track.files if track else ()).result


def host(name: str = "web", **changes: t.Any) -> Host:
    values: dict[str, t.Any] = dict(
        stack="s", name=name, server_name=name, addresses=("127.42.0.2",),
        agent_url="http://127.42.0.2:1", root=None, user_data=None, metadata={},
        resource_id="r", agent_secret="secret")
    values.update(changes)
    return Host(**values)


@pytest.fixture()
def machine(tmp_path: Path) -> Machine:
    return Machine(host(), LocalAgent(tmp_path))


def test_a_script_runs_with_its_variables_and_files_beside_it(machine: Machine) -> None:
    result = run_script(machine, 'echo "$GREETING $(cat data.txt)"; echo oops >&2; exit 3',
                        {"GREETING": "it's here", "not a name": "x"},
                        {"data.txt": b"and the file"})
    assert (result.exit_code, result.stdout.strip(), result.stderr.strip()) == \
        (3, "it's here and the file", "oops")
    assert not result.ok


def test_the_plan_is_the_plan_builders_v2_plan() -> None:
    ids = iter(f"id{i}" for i in range(10))
    plan = script_plan("job", "echo hi\n", {"blob": b"\x00\x01"},
                       builder=PlanBuilder(new_id=lambda: next(ids), clock=lambda: 1.0))
    assert plan["ID"] == "id0" and plan["FormatVersion"] == "2.1.0" and plan["Name"] == "job"
    script = plan["Scripts"]["run"]
    assert plan["Files"][script["EntryPoint"]] == {"Name": "script.sh", "BodyType": "Text",
                                                   "Body": "echo hi\n"}
    (blob,) = script["Files"]
    assert plan["Files"][blob]["Name"] == "blob"
    assert base64.b64decode(plan["Files"][blob]["Body"]) == b"\x00\x01"
    assert script["Options"]["verifyExitcode"] is False


def test_a_file_beside_the_script_may_not_take_its_name() -> None:
    with pytest.raises(ValueError, match="script.sh"):
        script_plan("job", "true", {"script.sh": b""})


def test_put_file_writes_under_the_hosts_home(machine: Machine, tmp_path: Path) -> None:
    put_file(machine, "deep/er/app.conf", b"key=value\n", mode=0o640)
    written = tmp_path / "deep" / "er" / "app.conf"
    assert written.read_bytes() == b"key=value\n"
    assert written.stat().st_mode & 0o777 == 0o640


def test_put_file_that_cannot_write_is_a_script_error(machine: Machine,
                                                      tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ScriptError, match="file/inside could not be written on web"):
        put_file(machine, "file/inside", b"x")


def test_a_failed_plan_is_a_script_error() -> None:
    failed = {"FormatVersion": "2.0.0", "ErrorCode": 100,
              "Body": {"Message": "no", "AdditionalInfo": None}}
    agent = RecordingAgent("web").then(failed)
    with pytest.raises(ScriptError, match="the agent of web failed plan 'job'"):
        run_script(Machine(host(), agent), "true", name="job")


def test_an_agent_client_needs_a_running_agent() -> None:
    with pytest.raises(HostUnavailable, match="the agent of web is not running"):
        agent_client(host(agent_url=None))
    client = agent_client(host())
    try:
        assert client.health is not None
    finally:
        t.cast(t.Any, client).close()


def test_plans_sent_while_working_on_a_component_are_its(machine: Machine,
                                                         tmp_path: Path) -> None:
    agent = t.cast(LocalAgent, machine.agent)
    run_script(machine, "true\n")
    with working_on("web"):
        put_file(machine, "conf/web.conf", b"port 80\n")
        run_script(machine, "echo up > \"$HOME/web.state\"\n")
    assert agent.tracks == [None, Track("web", ("conf/web.conf",)), Track("web", ())]
    assert agent.executor.tracker.check() == {"web": {
        "tracked": {"processes": 0, "files": 2, "addresses": 0}, "drift": []}}
