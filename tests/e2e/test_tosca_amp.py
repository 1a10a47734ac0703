"""AMP's blueprints as seed 003 writes them, deployed through the CLI with real
processes: the DynamicCluster example (members serving HTTP), the
add_brooklyn_types example (its policy in the deployed topology), and a
``$brooklyn:attributeWhenReady`` that holds one node until another publishes."""

from __future__ import annotations

import time
from pathlib import Path

import tenacity

from .helpers import alive, get, laguna

SCENARIO = Path(__file__).with_name("tosca_amp")


@tenacity.retry(stop=tenacity.stop_after_delay(10), wait=tenacity.wait_fixed(0.1),
                retry=tenacity.retry_if_result(bool), retry_error_callback=lambda s: True)
def _any_alive(pids: list[int]) -> bool:
    """Whether a process of ``pids`` is still alive after up to 10 s (undeploy's TERM,
    then KILL after 2 s)."""
    return any(alive(pid) for pid in pids)


def test_the_seeds_dynamic_cluster_deploys_its_members(workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(SCENARIO / "cluster.yaml"))
    assert (code, data["status"]) == (0, "ok"), data["error"]
    cluster = data["components"]["a_node"]
    assert cluster["type"] == "io.cloudsoft.smart-tomcat9-node"
    # cluster.initial.size wins over the Scaling policy's minPoolSize 1
    members = cluster["instances"]
    assert [m["id"] for m in members] == ["a_node.0", "a_node.1"]
    run = members[0]["attributes"]["tosca_id"].split("-")[0]
    assert [m["attributes"]["tosca_id"] for m in members] == [
        f"{run}-a_node.0", f"{run}-a_node.1"]
    pids = []
    for member in members:
        tosca_id = member["attributes"]["tosca_id"]
        page = get(member["attributes"]["main.uri"])
        assert page == f"hello.war on {tosca_id}\n"
        pids.append(int((workdir / f"{tosca_id}.pid").read_text()))
    assert data["model"]["tosca"]["topology"]["policies"] == ["AutoScaling"]

    code, data = laguna(workdir, "undeploy", "seed-cluster")
    assert (code, data["state"]) == (0, "undeployed")
    assert [m["state"] for m in data["components"]["a_node"]["instances"]] == [
        "deleted", "deleted"]
    assert not _any_alive(pids)


def test_the_seeds_initializer_group_attaches_its_policy(workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(SCENARIO / "groups.yaml"))
    assert (code, data["status"]) == (0, "ok"), data["error"]
    topology = data["model"]["tosca"]["topology"]
    assert (topology["groups"], topology["policies"]) == (
        ["add_brooklyn_types"], ["add_brooklyn_types.0"])
    members = data["components"]["tomcat-cluster"]["instances"]
    assert [(m["id"], m["state"]) for m in members] == [
        ("tomcat-cluster.0", "started"), ("tomcat-cluster.1", "started")]
    for member in members:
        assert get(member["attributes"]["main.uri"]) == \
            f"shop.war on {member['attributes']['tosca_id']}\n"
    code, data = laguna(workdir, "undeploy", "seed-groups")
    assert (code, data["state"]) == (0, "undeployed")


def test_attribute_when_ready_holds_the_reader_until_the_value_is_published(
        workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(SCENARIO / "waits.yaml"))
    assert (code, data["status"]) == (0, "ok"), data["error"]
    assert data["components"]["web"]["attributes"]["seen"] == "db.internal"
    # web's create ran only once db had published its host, a second into db's start
    ready = float((workdir / "db.ready").read_text())
    created = float((workdir / "web.created").read_text())
    assert created >= ready
    code, data = laguna(workdir, "undeploy", "amp-waits")
    assert (code, data["state"]) == (0, "undeployed")


def test_the_seeds_location_group_puts_its_members_on_the_local_cloud(
        workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(SCENARIO / "locations.yaml"))
    assert (code, data["status"]) == (0, "ok"), data["error"]
    stack = data["model"]["tosca"]["stack"]
    assert stack.startswith("tosca-") and data["model"]["tosca"]["cloud"] == "here"
    hosts = workdir / ".laguna" / "cloud" / "hosts" / stack
    prefix = "tosca.interfaces.node.lifecycle.Standard.create."
    for node in ("templateName", "specific_node"):
        attributes = data["components"][node]["attributes"]
        # each member on a host of its own, its operation run by that host's agent
        assert attributes[prefix + "HOME_DIR"] == str(hosts / f"tosca_{node}")
        assert f":{stack}:tosca_{node}:" in attributes[prefix + "HOST_MARKER"]
    assert data["components"]["elsewhere"]["attributes"][prefix + "HOST_MARKER"] == "none"

    code, data = laguna(workdir, "undeploy", "seed-locations")
    assert (code, data["state"]) == (0, "undeployed")
    assert not (hosts / "tosca_templateName").exists()
    assert not (hosts / "tosca_specific_node").exists()


def test_an_inner_templates_trigger_acts_on_its_node_once_composed(workdir: Path) -> None:
    (workdir / "load").write_text("1\n")
    code, data = laguna(workdir, "deploy", str(SCENARIO / "composed" / "service.yaml"))
    assert (code, data["status"]) == (0, "ok"), data["error"]
    assert data["model"]["tosca"]["topology"]["policies"] == ["app.on_load"]
    assert (workdir / "trace").read_text() == "configured\n"
    (workdir / "load").write_text("9\n")
    time.sleep(1.2)     # the check's period: it is due in the next pass
    code, data = laguna(workdir, "watch", "composed-trigger", "--once")
    assert code == 0, data
    texts = [r["text"] for r in data["reports"] if ": sh " not in r["text"]]
    assert "policy app.on_load: trigger busy fired on app.svc (event load_high)" in texts
    assert "policy app.on_load: trigger busy: call_operation Standard.configure done" in texts
    assert (workdir / "trace").read_text() == "configured\nconfigured\n"
    code, data = laguna(workdir, "undeploy", "composed-trigger")
    assert (code, data["state"]) == (0, "undeployed")
