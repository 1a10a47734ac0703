"""Redeploy by difference with real processes: each node of
tosca_redeploy/service.yaml starts a daemon (a sleep loop, its pid in
NODE.pid). A redeploy of the same template keeps every daemon; a changed node
reruns with its dependents (their old daemons stopped first); a node gone from
the template is undeployed; a failed node reruns; a drifted node (`laguna
check` on the local cloud) is repaired alone."""

from __future__ import annotations

import typing as t
from pathlib import Path

from tests.marked import kill

from .helpers import alive, laguna

HERE = Path(__file__).parent / "tosca_redeploy"
SERVICE = str(HERE / "service.yaml")
NODES = ("cache", "db", "web")


def processes(workdir: Path) -> t.Iterator[tuple[int, str]]:
    """Each live process whose working directory is under ``workdir`` (another
    test may run the same template), with the last word of its command line."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            cwd = (entry / "cwd").resolve()
        except OSError:
            continue
        if alive(int(entry.name)) and cwd.is_relative_to(workdir.resolve()):
            yield int(entry.name), words[-1].decode(errors="replace")


def daemons(workdir: Path) -> dict[str, list[int]]:
    """Each node's live daemons (processes named redeploy-daemon-NODE)."""
    found: dict[str, list[int]] = {name: [] for name in NODES}
    for pid, name in processes(workdir):
        if name.startswith("redeploy-daemon-") and name[16:] in found:
            found[name[16:]].append(pid)
    return {name: sorted(pids) for name, pids in found.items()}


def pids(workdir: Path) -> dict[str, int]:
    """Each node's one daemon (asserted one), and its pid file says so."""
    running = daemons(workdir)
    assert all(len(found) == 1 for found in running.values()), running
    for name, [pid] in running.items():
        [pid_file] = [p for p in workdir.rglob(f"{name}.pid") if ".laguna" not in p.parts
                      or "hosts" in p.parts]
        assert int(pid_file.read_text()) == in_its_namespace(pid)
    return {name: found[0] for name, found in running.items()}


def in_its_namespace(pid: int) -> int:
    """``pid`` as the process sees it (a local cloud's host has its own pid
    namespace: the pid file holds that number)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("NSpid:"):
            return int(line.split()[-1])
    return pid


def deploy(workdir: Path, *args: str, template: str = SERVICE) -> dict[str, t.Any]:
    code, result = laguna(workdir, "deploy", template, "--name", "rd", *args)
    assert (code, result["state"]) == (0, "ready"), result["error"]
    return t.cast(dict[str, t.Any], result)


def lines(result: dict[str, t.Any], *starts: str) -> list[tuple[str, str]]:
    """The reports about keeping and rerunning nodes (object, text)."""
    return [(r["object"], r["text"]) for r in result["reports"]
            if r["text"].startswith(("node ", *starts))]


KEPT = [(name, f"node {name}: unchanged, kept") for name in ("cache", "db", "vm", "web")]


def test_a_redeploy_keeps_what_did_not_change(workdir: Path) -> None:
    deploy(workdir)
    first = pids(workdir)

    # the same template: nothing runs, every daemon is the one it was
    again = deploy(workdir)
    assert lines(again, "Standard.") == KEPT
    assert pids(workdir) == first

    # the dry run of a change says what would be undeployed, kept and run
    code, dry = laguna(workdir, "deploy", SERVICE, "--name", "rd", "--dry-run",
                       "--set", "db_version=2.0")
    assert code == 0 and [(s["kind"], s["node"], s.get("why"), s.get("operation"))
                          for s in dry["plan"]] == [
        ("undeploy", "db", "changed", None), ("undeploy", "web", "db reruns", None),
        ("kept", "cache", None, None), ("kept", "vm", None, None),
        ("host", "vm", None, None),
        ("operation", "db", None, "create"), ("operation", "db", None, "start"),
        ("operation", "web", None, "create"), ("operation", "web", None, "start")]
    assert pids(workdir) == first

    # db's property changes: db reruns (its old daemon stopped), web with it (it
    # requires db running); cache and the machine are kept
    changed = deploy(workdir, "--set", "db_version=2.0")
    assert lines(changed) == [
        ("db", "node db: changed: its instances are undeployed, its lifecycle runs again"),
        ("web", "node web: db reruns: its instances are undeployed, its lifecycle runs "
                "again"),
        ("cache", "node cache: unchanged, kept"), ("vm", "node vm: unchanged, kept")]
    second = pids(workdir)
    assert second["cache"] == first["cache"]
    assert second["db"] != first["db"] and second["web"] != first["web"]
    assert not alive(first["db"]) and not alive(first["web"])
    assert [c["state"] for c in changed["components"].values()] == ["started"] * 4

    # cache is gone from the template: it is undeployed, the others kept
    without = deploy(workdir, "--set", "db_version=2.0",
                     template=str(HERE / "without_cache.yaml"))
    assert lines(without) == [
        ("cache", "node cache: no longer in the template: undeployed"),
        ("db", "node db: unchanged, kept"), ("vm", "node vm: unchanged, kept"),
        ("web", "node web: unchanged, kept")]
    assert daemons(workdir) == {"cache": [], "db": [second["db"]], "web": [second["web"]]}
    assert not (workdir / "cache.pid").exists()
    code, status = laguna(workdir, "status", "rd")
    assert sorted(status["components"]) == ["db", "vm", "web"]

    # undeployed, then deployed again: nothing is kept from before
    code, _ = laguna(workdir, "undeploy", "rd")
    assert (code, daemons(workdir)) == (0, {"cache": [], "db": [], "web": []})
    assert lines(deploy(workdir)) == []
    assert set(pids(workdir).values()).isdisjoint({*first.values(), *second.values()})


def test_a_failed_deploy_s_failed_node_reruns(workdir: Path) -> None:
    (workdir / "fail-web").write_text("")
    code, result = laguna(workdir, "deploy", SERVICE, "--name", "rd")
    assert (code, result["state"], result["error"]["message"]) == (
        1, "deploy failure", "node web: Standard.create failed: sh "
        f"{HERE / 'scripts' / 'create.sh'} exited with 3")
    running = daemons(workdir)
    assert (running["web"], len(running["db"])) == ([], 1)

    (workdir / "fail-web").unlink()
    again = deploy(workdir)
    assert lines(again) == [
        ("web", "node web: not started by the last deploy: its instances are undeployed, "
                "its lifecycle runs again"),
        ("cache", "node cache: unchanged, kept"), ("db", "node db: unchanged, kept"),
        ("vm", "node vm: unchanged, kept")]
    after = pids(workdir)
    assert (after["db"], after["cache"]) == (running["db"][0], running["cache"][0])


def test_drift_is_repaired_alone(workdir: Path) -> None:
    deploy(workdir, "--cloud", "local")
    first = pids(workdir)
    kill(first["cache"])
    code, report = laguna(workdir, "check", "rd")
    assert (code, report["drifted"]) == (1, ["cache"]), report["components"]

    repaired = deploy(workdir)
    assert lines(repaired) == [
        ("cache", "node cache: drifted (laguna check): its instances are undeployed, its "
                  "lifecycle runs again"),
        ("db", "node db: unchanged, kept"), ("vm", "node vm: unchanged, kept"),
        ("web", "node web: unchanged, kept")]
    after = pids(workdir)
    assert (after["db"], after["web"]) == (first["db"], first["web"])
    assert after["cache"] != first["cache"]
    code, report = laguna(workdir, "check", "rd")
    assert (code, report["drifted"]) == (0, []), report
    # nothing drifted any more: the next deploy keeps everything
    assert lines(deploy(workdir), "Standard.") == KEPT
    assert pids(workdir) == after


def pool(workdir: Path) -> dict[str, int]:
    """The pool node's daemons (named after its ``tosca_id``): instance -> pid."""
    return {name.rpartition("-")[2]: pid for pid, name in processes(workdir)
            if name.startswith("redeploy-daemon-") and "-pool." in name}


def test_a_changed_instance_count_adds_and_removes_instances_only(workdir: Path) -> None:
    deploy(workdir, template=str(HERE / "scaled.yaml"))
    first = pool(workdir)
    assert sorted(first) == ["pool.0", "pool.1"]

    grown = deploy(workdir, template=str(HERE / "scaled_three.yaml"))
    assert lines(grown) == [("pool", "node pool: unchanged, kept, resized to 3")]
    after = pool(workdir)
    assert sorted(after) == ["pool.0", "pool.1", "pool.2"]
    assert {key: after[key] for key in first} == first

    shrunk = deploy(workdir, template=str(HERE / "scaled.yaml"))
    assert lines(shrunk) == [("pool", "node pool: unchanged, kept, resized to 2")]
    assert pool(workdir) == first
    assert [i["id"] for i in shrunk["components"]["pool"]["instances"]] == [
        "pool.0", "pool.1"]
