"""A TOSCA node action on a deployment made with ``--cloud local``: the operation runs
through the agent of the host its node is hosted on, with the host's directory as HOME
and current directory, and the host is gone after undeploy."""

from __future__ import annotations

from pathlib import Path

from .helpers import laguna

BLUEPRINT = Path(__file__).with_name("tosca_cloud_action") / "service.yaml"


def _ancestors(where: list[str]) -> list[str]:
    """The command lines of the operation's processes, the script's shell first."""
    return [line.split(" ", 2)[2] for line in where if line.startswith("ancestor ")]


def test_a_node_action_runs_through_the_hosts_agent(workdir: Path) -> None:
    code, data = laguna(workdir, "deploy", str(BLUEPRINT), "--cloud", "local")
    assert (code, data["status"]) == (0, "ok"), data["error"]
    undeployed = False
    try:
        # the stack's name holds the environment's random id: read it, never guess it
        stack = data["model"]["tosca"]["stack"]
        assert stack.startswith("tosca-")
        host = workdir / ".laguna" / "cloud" / "hosts" / stack / "tosca_vm"
        assert (host / "created").read_text() == "created\n"

        code, data = laguna(workdir, "action", "cloud-action", "app", "Admin.where",
                            "--arg", "label=given")
        assert (code, data["status"], data["state"]) == (0, "ok", "ready"), data["error"]
        attributes = data["components"]["app"]["attributes"]
        assert attributes["my.interfaces.Admin.where.WHERE_HOME"] == str(host)
        code, status = laguna(workdir, "status", "cloud-action")
        assert status["components"]["app"]["attributes"][
            "my.interfaces.Admin.where.WHERE_HOME"] == str(host)

        where = (host / "where.txt").read_text().splitlines()
        assert where[:3] == ["label given", f"home {host}", f"pwd {host}"]
        # the marker only the host's agent gives its scripts
        assert where[3].startswith("marker ") and f":{stack}:tosca_vm:" in where[3]
        chain = _ancestors(where)
        assert chain[0].startswith("sh -c ") and chain[0].rstrip().endswith("/where.sh")
        # the script's shell descends from the host's agent, started for this host
        agents = [i for i, line in enumerate(chain) if " -m laguna.agent " in line
                  and f"--root {host} " in line and not line.startswith("unshare ")]
        assert len(agents) == 1 and agents[0] > 0, chain

        code, data = laguna(workdir, "undeploy", "cloud-action")
        undeployed = True
        assert (code, data["state"]) == (0, "undeployed")
        assert not host.exists()
    finally:
        if not undeployed:
            laguna(workdir, "undeploy", "cloud-action")
