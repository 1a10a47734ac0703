"""Plans run on this machine in a temporary host directory: exact result documents."""

from __future__ import annotations

import base64
import datetime
import itertools
import threading
import os
import time
from pathlib import Path
from typing import Any

import pytest

import laguna.agent.executor
from laguna.agent.executor import Outcome, PlanExecutor
from laguna.agent.main import DeferredExecutor
from laguna.agent.results import ResultFactory

TIME = "2026-01-02 03:04:05.000006"


@pytest.fixture()
def executor(tmp_path: Path) -> PlanExecutor:
    ids = itertools.count(1)
    results = ResultFactory(clock=lambda: datetime.datetime(2026, 1, 2, 3, 4, 5, 6),
                            new_id=lambda: f"r{next(ids)}")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(tmp_path)}
    return PlanExecutor(tmp_path, env, results)


def plan(script: str, body: str = "return deploy()", options: dict[str, Any] | None = None,
         **extra: Any) -> dict[str, Any]:
    files = {"f1": {"Name": "deploy.sh", "BodyType": "Text", "Body": script}}
    files.update(extra.pop("Files", {}))
    return {
        "FormatVersion": "2.0.0", "ID": "p1", "Body": body, "Files": files,
        "Scripts": {"deploy": {"Type": "Application", "EntryPoint": "f1",
                               "Files": extra.pop("script_files", []),
                               "Options": options or {}}},
        **extra,
    }


def success(body: Any, result_id: str = "r1") -> dict[str, Any]:
    return {"FormatVersion": "2.0.0", "ID": result_id, "SourceID": "p1",
            "Action": "Execution:Result", "ErrorCode": 0, "Body": body, "Time": TIME}


def error(code: int, message: str, info: Any = None) -> dict[str, Any]:
    return {"FormatVersion": "2.0.0", "ID": "r1", "SourceID": "p1",
            "Action": "Execution:Result", "ErrorCode": code,
            "Body": {"Message": message, "AdditionalInfo": info}, "Time": TIME}


def test_script_result_with_stdout_and_stderr(executor: PlanExecutor) -> None:
    outcome = executor.execute(plan("#!/bin/sh\necho out $1\necho err >&2\n",
                                    body="return deploy(args.name)", Parameters={"name": "x"}),
                               10)
    assert outcome == Outcome("done", success(
        {"exitCode": 0, "stdout": "out x", "stderr": "err"}), "p1")


def test_scripts_run_with_home_cwd_and_a_clean_environment(
        executor: PlanExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "s3cret")
    outcome = executor.execute(plan('echo "$HOME|$(pwd)"; env | cut -d= -f1 | sort | tr "\\n" ,',
                                    body="return deploy().stdout"), 10)
    plan_dir = tmp_path / "agent" / "plans" / "p1"
    assert outcome.result["Body"] == f"{tmp_path}|{plan_dir / 'deploy'}\nHOME,LANG,PATH,PWD,"


def test_verify_exitcode_turns_a_failure_into_error_100(executor: PlanExecutor) -> None:
    outcome = executor.execute(plan("echo partial; echo broken >&2; exit 3"), 10)
    assert outcome == Outcome("done", error(100, "Script deploy returned error code", {
        "exitCode": 3, "stdout": "partial", "stderr": "broken"}), "p1")


def test_without_verify_exitcode_the_body_sees_the_exit_code(executor: PlanExecutor) -> None:
    outcome = executor.execute(plan("exit 3", body="return deploy().exitCode",
                                    options={"verifyExitcode": False}), 10)
    assert outcome == Outcome("done", success(3), "p1")


def test_uncaptured_output_is_none(executor: PlanExecutor) -> None:
    outcome = executor.execute(plan("echo out; echo err >&2", options={
        "captureStdout": False, "captureStderr": False}), 10)
    assert outcome.result["Body"] == {"exitCode": 0, "stdout": None, "stderr": None}


def test_base64_file_is_written_byte_exact_and_linked_by_name(
        executor: PlanExecutor, tmp_path: Path) -> None:
    raw = bytes(range(256)) + b"\xff\xfe\x00"
    files = {"f2": {"Name": "data/blob.bin", "BodyType": "Base64",
                    "Body": base64.b64encode(raw).decode() + "\n"}}
    outcome = executor.execute(plan("cmp data/blob.bin \"$(readlink data/blob.bin)\" && wc -c "
                                    "< data/blob.bin", body="return deploy().stdout",
                                    Files=files, script_files=["f2"]), 10)
    assert outcome.result["Body"] == "259"
    plan_dir = tmp_path / "agent" / "plans" / "p1"
    assert (plan_dir / "files" / "f2").read_bytes() == raw
    assert (plan_dir / "deploy" / "data" / "blob.bin").readlink() == plan_dir / "files" / "f2"


def test_put_file_template_of_io_murano(executor: PlanExecutor, tmp_path: Path) -> None:
    """io.murano's PutFile.template and scripts/putFile.sh, as the original engine built them."""
    put_file = '#!/bin/bash\nTARGET_PATH=$1\nmv "$(readlink destinationFile)" "$TARGET_PATH"\n'
    target = tmp_path / "motd"
    outcome = executor.execute({
        "FormatVersion": "2.0.0", "Version": "1.0.0", "Name": "Put to motd", "ID": "p1",
        "Parameters": {"path": str(target)},
        "Body": "return putFile(\"'{0}'\".format(args.path)).exitCode == 0\n",
        "Files": {"d1": {"BodyType": "Base64", "Name": "destinationFile",
                         "Body": base64.b64encode(b"\x00hello\xff").decode()},
                  "s1": {"BodyType": "Text", "Name": "putFile.sh", "Body": put_file}},
        "Scripts": {"putFile": {"Type": "Application", "Version": "1.0.0", "EntryPoint": "s1",
                                "Files": ["d1"], "Options": {"captureStdout": False,
                                                             "captureStderr": True,
                                                             "verifyExitcode": True}}},
    }, 10)
    assert outcome == Outcome("done", success(True), "p1")
    assert target.read_bytes() == b"\x00hello\xff"


def test_timeout_kills_the_script_and_its_process_group(
        executor: PlanExecutor, tmp_path: Path) -> None:
    script = "sleep 60 & echo $! > $HOME/child.pid; echo started; exec sleep 60"
    start = time.monotonic()
    outcome = executor.execute(plan(script), 0.5)
    assert time.monotonic() - start < 5
    message = "Script deploy did not finish within 0.5 seconds and was killed"
    assert outcome == Outcome("timeout", error(1, message, {
        "exitCode": -9, "stdout": "started", "stderr": None}), "p1", message, 1, 0.5)
    assert _gone(int((tmp_path / "child.pid").read_text()))


def test_daemon_keeping_stdout_open_does_not_hold_the_plan(executor: PlanExecutor,
                                                           tmp_path: Path) -> None:
    script = "sleep 60 & echo $! > $HOME/daemon.pid; echo started"
    start = time.monotonic()
    outcome = executor.execute(plan(script, body="return deploy().stdout"), 30)
    daemon = int((tmp_path / "daemon.pid").read_text())
    try:
        assert (outcome.result["Body"], time.monotonic() - start < 10) == ("started", True)
        assert _alive(daemon)
    finally:
        os.kill(daemon, 9)


def test_refused_plan_runs_nothing(executor: PlanExecutor, tmp_path: Path) -> None:
    files = {"f2": {"Name": "../escape", "BodyType": "Text", "Body": "x"}}
    outcome = executor.execute(plan("touch $HOME/ran", Files=files), 10)
    message = "File f2 has name '../escape', which leaves the plan directory"
    assert outcome == Outcome("rejected", error(2, message), "p1", message, 2)
    assert not (tmp_path / "ran").exists()


def test_v1_plan_runs_commands_in_order_until_one_fails(executor: PlanExecutor) -> None:
    scripts = base64.b64encode(b'greet() { echo "hello $1"; echo "age $2"; }\n'
                               b'fail() { echo oops >&2; return 4; }\n').decode()
    outcome = executor.execute({
        "Scripts": [scripts],
        "Commands": [{"Name": "greet", "Arguments": {"name": "ann", "age": 7}},
                     {"Name": "fail"}, {"Name": "greet"}],
    }, 10)
    assert outcome.result == {"IsException": False, "Result": [
        {"IsException": False, "Result": ["hello ann", "age 7"]},
        {"IsException": True, "Result": [
            "laguna.agent.CommandFailed", "Command fail returned exit code 4", "fail",
            {"exitCode": 4, "stdout": None, "stderr": "oops"}]},
    ]}


def test_a_1_0_0_plan_of_named_scripts_runs_as_murano_agent_ran_it(
        executor: PlanExecutor) -> None:
    # what Agent.callRaw sends as it is: FormatVersion 1.0.0 with the Linux agent's
    # map of named scripts (murano-agent ran every plan that way); a v2 result
    raw = plan("#!/bin/sh\necho checked $1\n", body="return check('now').stdout",
               FormatVersion="1.0.0")
    raw["Scripts"] = {"check": raw["Scripts"].pop("deploy")}
    raw["Scripts"]["check"]["Options"] = {"captureStdout": True, "captureStderr": True}
    assert executor.execute(raw, 10) == Outcome("done", success("checked now"), "p1")
    del raw["FormatVersion"]          # murano-agent's default for a missing one: 1.0.0
    raw["ID"] = "p1"
    assert executor.execute(raw, 10).result["Body"] == "checked now"


def test_v1_refusal_has_the_v1_shape(executor: PlanExecutor) -> None:
    outcome = executor.execute({"Scripts": "nope"}, 10)
    assert outcome.result == {"IsException": True, "Result": [
        "laguna.agent.PlanError", "Scripts of a v1 plan is not a list", None, None]}


def _alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (killed, not yet reaped by init) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _gone(pid: int) -> bool:
    """Waits (at most 5 s) for a killed process to disappear."""
    deadline = time.monotonic() + 5
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_clashing_file_names_give_an_error_result(executor: PlanExecutor,
                                                  tmp_path: Path) -> None:
    files = {"f2": {"Name": "deploy.sh/inner", "BodyType": "Text", "Body": ""}}
    outcome = executor.execute(plan("true", Files=files, script_files=["f2"]), 10)
    link = tmp_path / "agent" / "plans" / "p1" / "deploy" / "deploy.sh"
    assert outcome == Outcome("done", error(
        1, f"Body line 1: FileExistsError: [Errno 17] File exists: "
           f"'{tmp_path / 'agent' / 'plans' / 'p1' / 'files' / 'f1'}' -> '{link}'"), "p1")


def test_second_argument_of_a_script_is_its_stdin(executor: PlanExecutor) -> None:
    outcome = executor.execute(plan("tr a-z A-Z", body="return deploy('', args.text).stdout",
                                    Parameters={"text": "piped in"}), 10)
    assert outcome.result["Body"] == "PIPED IN"


def test_one_plan_at_a_time(executor: PlanExecutor, tmp_path: Path) -> None:
    first: list[Outcome] = []
    thread = threading.Thread(target=lambda: first.append(executor.execute(
        plan("echo started; exec sleep 60", ID="first"), 1.5)))
    thread.start()
    log = tmp_path / "agent" / "plans" / "first" / "logs" / "001-deploy.stdout"
    deadline = time.monotonic() + 10
    while not (log.exists() and log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.01)
    second = executor.execute(plan("true", ID="second"), 0.2)
    thread.join(10)
    message = "The agent was busy with another plan for 0.2 seconds"
    assert (second.status, second.message, first[0].status) == ("timeout", message, "timeout")


def test_entry_point_name_is_quoted_for_the_shell(executor: PlanExecutor) -> None:
    files = {"f1": {"Name": "my $x `deploy`.sh", "BodyType": "Text", "Body": "echo ran $1"}}
    outcome = executor.execute(plan("", body="return deploy('ok').stdout", Files=files), 10)
    assert outcome.result["Body"] == "ran ok"


def test_two_first_plans_at_once_share_one_deferred_executor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[PlanExecutor] = []

    class SlowToBuild(PlanExecutor):
        def __init__(self, *args: Any) -> None:
            time.sleep(0.1)  # long enough for the other thread to look meanwhile
            super().__init__(*args)
            built.append(self)

    monkeypatch.setattr(laguna.agent.executor, "PlanExecutor", SlowToBuild)
    deferred = DeferredExecutor(tmp_path, {"PATH": "/usr/bin:/bin"})
    start = threading.Barrier(2)
    outcomes: list[Outcome] = []

    def first_plan(plan_id: str) -> None:
        start.wait(5)
        outcomes.append(deferred.execute(plan("echo ok", "return deploy().stdout",
                                              ID=plan_id), 30))

    threads = [threading.Thread(target=first_plan, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(built) == 1
    assert sorted((o.status, o.plan_id, o.result["Body"]) for o in outcomes) == [
        ("done", "a", "ok"), ("done", "b", "ok")]
