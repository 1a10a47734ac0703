"""Watching assemblies (docs/DESCRIPTORS.md, "Watching"): a component whose
process is killed fails its Integrity script, is seen Broken by `laguna watch
NAME --once` within two periods, and is healed when the assembly asks for it
(``autoHeal``), only reported when it does not. Real processes: the daemon
resource's Start leaves a `sleep` running on this machine, its Integrity
script checks that pid."""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import time
import typing as t
from pathlib import Path

from .helpers import COMMAND_TIMEOUT, command, environ, laguna

HERE = Path(__file__).with_name("assembly_watch")
CATALOG = ["-l", str(HERE)]
#: integrityPeriod of the assemblies below, in seconds
PERIOD = 8


def _pid(workdir: Path, instance: str) -> int:
    return int((workdir / "daemons" / f"{instance}.pid").read_text())


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a dead child of nobody in particular lingers as a zombie until reaped
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _kill(pid: int) -> datetime.datetime:
    os.kill(pid, signal.SIGKILL)
    end = time.monotonic() + 10
    while _running(pid) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _running(pid)
    return datetime.datetime.now(datetime.timezone.utc)


def _first_changed_pass(workdir: Path, name: str) -> dict[str, t.Any]:
    """`watch NAME --once` until a pass reports something (at most 4 periods)."""
    end = time.monotonic() + 4 * PERIOD + 30
    while time.monotonic() < end:
        code, data = laguna(workdir, "watch", name, "--once")
        assert (code, data["status"]) == (0, "ok"), data
        if data["reports"]:
            return t.cast(dict[str, t.Any], data)
        time.sleep(0.2)
    raise AssertionError(f"no pass of {name} reported anything")


def _when(report: dict[str, t.Any]) -> datetime.datetime:
    return datetime.datetime.fromisoformat(report["time"].replace("Z", "+00:00"))


def _deploy(workdir: Path, name: str, *inputs: str) -> dict[str, t.Any]:
    code, data = laguna(workdir, "deploy", str(HERE / "watched.yaml"), "--name", name,
                        "--input", f"integrityPeriod={PERIOD}", *inputs, *CATALOG)
    assert (code, data["state"]) == (0, "Active"), data
    # the pass after a deploy runs every check at once: all pass, nothing to report,
    # no deployment left behind (status still shows the deploy's reports)
    code, quiet = laguna(workdir, "watch", name, "--once")
    assert (code, quiet["reports"]) == (0, []), quiet
    code, status = laguna(workdir, "status", name)
    assert status["reports"][0]["text"] == f"Install {name}__daemon"
    return t.cast(dict[str, t.Any], data)


def _stop_all(workdir: Path) -> None:
    """What a failed test left running on this machine."""
    for pidfile in (workdir / "daemons").glob("*.pid"):
        try:
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def test_a_broken_component_is_healed_when_the_assembly_asks(workdir: Path) -> None:
    try:
        _deploy(workdir, "healed", "--input", "autoHeal=true")
        old = _pid(workdir, "healed__daemon")
        killed = _kill(old)
        found = _first_changed_pass(workdir, "healed")
        failure = next(r for r in found["reports"] if r["level"] == "error")
        assert (_when(failure) - killed).total_seconds() <= 2 * PERIOD
        assert [(r["level"], r["text"]) for r in found["reports"]
                if r["object"] == "healed__daemon"] == [
            ("info", "Integrity healed__daemon"),
            ("error", "Integrity of healed__daemon exited with 3: healed__daemon is "
                      f"Broken: healed__daemon: process {old} is not running"),
            ("info", "healed__daemon: healing (autoHeal)"),
            # no Heal declared: reinstalled, as `laguna intent NAME heal` does
            ("info", "Stop healed__daemon"), ("info", "Uninstall healed__daemon"),
            ("info", "Install healed__daemon"), ("info", "Start healed__daemon"),
            ("info", "Integrity healed__daemon"),
            ("info", "healed__daemon healed: Active")]
        assert {k: c["state"] for k, c in found["components"].items()} == {
            "healed__daemon": "Active", "healed__helper": "Active"}
        assert "condition" not in found["components"]["healed__daemon"]
        new = _pid(workdir, "healed__daemon")
        assert new != old and _running(new)
        assert (workdir / "daemons" / "starts.log").read_text().splitlines().count(
            "started healed__daemon") == 2
        code, status = laguna(workdir, "status", "healed")
        assert (code, status["state"], status["reports"][-1]["text"]) == (
            0, "Active", "Integrity healed__helper")

        code, data = laguna(workdir, "intent", "healed", "delete", *CATALOG)
        assert (code, data["state"]) == (0, None)
        assert not _running(new)
    finally:
        _stop_all(workdir)


def test_a_broken_component_is_only_reported_when_the_assembly_does_not_ask(
        workdir: Path) -> None:
    try:
        _deploy(workdir, "plain")
        old = _pid(workdir, "plain__daemon")
        killed = _kill(old)
        found = _first_changed_pass(workdir, "plain")
        assert [(r["level"], r["text"]) for r in found["reports"]
                if r["object"] == "plain__daemon"] == [
            ("info", "Integrity plain__daemon"),
            ("error", "Integrity of plain__daemon exited with 3: plain__daemon is "
                      f"Broken: plain__daemon: process {old} is not running"),
            ("warning", "plain__daemon stays Broken: the assembly does not ask for it to "
                        "be healed (autoHeal is not true)")]
        # the environment keeps its state through the pass; the instance is Broken
        code, status = laguna(workdir, "status", "plain")
        assert (code, status["state"]) == (0, "Active")
        daemon = status["components"]["plain__daemon"]
        assert (daemon["state"], daemon["condition"]["text"],
                daemon["condition"]["output"]) == (
            "Broken", "Integrity of plain__daemon exited with 3",
            f"plain__daemon: process {old} is not running")
        checked = datetime.datetime.fromisoformat(daemon["condition"]["time"])
        assert 0 <= (checked - killed).total_seconds() <= 2 * PERIOD
        assert status["components"]["plain__helper"]["state"] == "Active"
        assert status["reports"] == found["reports"]
        shown = subprocess.run(command(workdir, "status", "plain"), capture_output=True,
                               text=True, env=environ(), timeout=COMMAND_TIMEOUT, check=False)
        assert f"plain__daemon: {daemon['condition']['time']} Integrity of plain__daemon " \
            f"exited with 3: plain__daemon: process {old} is not running" in \
            shown.stdout.splitlines(), shown.stdout
        assert (workdir / "daemons" / "starts.log").read_text().splitlines().count(
            "started plain__daemon") == 1

        # later passes leave a Broken instance alone (it waits for a heal intent)
        time.sleep(PERIOD)
        code, later = laguna(workdir, "watch", "plain", "--once")
        assert (code, later["components"]["plain__daemon"]["state"]) == (0, "Broken")
        assert [r["text"] for r in later["reports"]] == []
        code, healed = laguna(workdir, "intent", "plain", "heal", "plain__daemon", *CATALOG)
        assert (code, healed["components"]["plain__daemon"]["state"]) == (0, "Active")
        assert "condition" not in healed["components"]["plain__daemon"]
        assert _running(_pid(workdir, "plain__daemon"))

        code, data = laguna(workdir, "intent", "plain", "delete", *CATALOG)
        assert (code, data["state"]) == (0, None)
    finally:
        _stop_all(workdir)
