"""Running operations: exported variables, sessions, and the undeploy order."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from laguna.frontends.tosca.frontend import undeploy_order
from laguna.frontends.tosca.runtime import end_sessions, run_script, session_processes
from laguna.frontends.tosca.topology import load_topology


def script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "op.sh"
    path.write_text(textwrap.dedent(text))
    return path


def test_exported_variables_are_the_outputs(tmp_path: Path) -> None:
    primary = script(tmp_path, """\
        export IS_RUNNING=true
        export MULTI="a
        b"
        UNEXPORTED=1
        export GIVEN="$given"
        export same="$same"
        pwd > where
        """)
    code, exported = run_script(primary, {"given": "in", "same": "kept"}, tmp_path,
                                tmp_path / "op.log", 10, {"PATH": os.environ["PATH"]})
    assert code == 0
    # `same` is what it was given: not an output
    assert exported == {"IS_RUNNING": "true", "MULTI": "a\nb", "GIVEN": "in"}
    assert (tmp_path / "where").read_text().strip() == str(tmp_path)


def test_an_exit_keeps_the_code_and_the_exports(tmp_path: Path) -> None:
    primary = script(tmp_path, "echo failing\nexport WHY=broken\nexit 7\n")
    code, exported = run_script(primary, {}, tmp_path, tmp_path / "op.log", 10,
                                {"PATH": os.environ["PATH"]})
    assert (code, exported) == (7, {"WHY": "broken"})
    assert (tmp_path / "op.log").read_text() == "failing\n"


def test_end_sessions_ends_what_an_operation_left_running(tmp_path: Path) -> None:
    primary = script(tmp_path, "nohup sleep 60 >/dev/null 2>&1 &\necho $! > pid\n")
    sessions: list[int] = []
    code, _ = run_script(primary, {}, tmp_path, tmp_path / "op.log", 10,
                         {"PATH": os.environ["PATH"]}, sessions.append)
    pid = int((tmp_path / "pid").read_text())
    assert code == 0 and session_processes(sessions) == [pid]
    end_sessions(sessions)
    assert session_processes(sessions) == []


def test_undeploy_goes_from_dependents_to_hosts(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent("""\
        tosca_definitions_version: tosca_simple_yaml_1_3
        topology_template:
          node_templates:
            vm: {type: tosca.nodes.Compute}
            dbms: {type: tosca.nodes.DBMS, requirements: [{host: vm}]}
            db:
              type: tosca.nodes.Database
              properties: {name: d}
              requirements: [{host: dbms}]
            web: {type: tosca.nodes.SoftwareComponent, requirements: [{dependency: db}]}
            x: {type: tosca.nodes.SoftwareComponent, requirements: [{dependency: y}]}
            y: {type: tosca.nodes.SoftwareComponent, requirements: [{dependency: x}]}
        """))
    topology, problems = load_topology(path)
    assert topology is not None, [p.brief() for p in problems.sorted()]
    order = undeploy_order(topology)
    assert sorted(order) == ["db", "dbms", "vm", "web", "x", "y"]
    assert order.index("web") < order.index("db") < order.index("dbms") < order.index("vm")
