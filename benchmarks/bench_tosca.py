"""TOSCA benchmark: validation time and deploy overhead per operation.

Generates a topology of N nodes: N/10 ``tosca.nodes.Compute`` (this machine)
and the rest ``SoftwareComponent``s, each hosted on a Compute, depending on
its predecessor, with a property checked against constraints and an input
read with get_input. Each SoftwareComponent has create, configure and start
operations whose script is ``:`` (a no-op shell script).

What is measured, for each N:

- ``validate``: ``load_topology`` of the generated template (YAML, types,
  every check), the median of ``--runs``;
- ``deploy``: the wall time of a whole deploy through ``Service.deploy`` (the
  CLI's path: store, reports, the TOSCA front end), then ``ops``, the number of
  operations run, and ``per op`` = deploy / ops;
- ``sh``: the time to run the same number of ``sh noop.sh`` one after the
  other from Python (fork, exec, the shell), the floor any shell operation
  pays; ``overhead/op`` = (deploy - sh) / ops, laguna's own cost per operation
  when the operations run in parallel threads (it can go below zero when the
  parallelism hides the shells);
- ``cpu/op``: this process's CPU time per operation during the deploy.

    python3 benchmarks/bench_tosca.py [--sizes 100,250,500,1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import yaml

from laguna.cli.workdirs import default_wiring
from laguna.deploy.frontend import PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.tosca.topology import load_topology


def template(nodes: int, folder: Path) -> Path:
    (folder / "noop.sh").write_text(":\n")
    computes = max(1, nodes // 10)
    templates: dict[str, object] = {}
    for c in range(computes):
        templates[f"vm{c}"] = {"type": "tosca.nodes.Compute",
                               "capabilities": {"host": {"properties": {
                                   "num_cpus": 2, "mem_size": "2 GB"}}}}
    for i in range(nodes - computes):
        requirements: list[object] = [{"host": f"vm{i % computes}"}]
        if i:
            requirements.append({"dependency": f"app{i - 1}"})
        templates[f"app{i}"] = {
            "type": "App", "properties": {"port": {"get_input": "port"}, "size": "1 GB"},
            "requirements": requirements}
    document = {
        "tosca_definitions_version": "tosca_simple_yaml_1_3",
        "metadata": {"template_name": f"bench{nodes}"},
        "node_types": {"App": {
            "derived_from": "tosca.nodes.SoftwareComponent",
            "properties": {
                "port": {"type": "integer", "constraints": [{"in_range": [1, 65535]}]},
                "size": {"type": "scalar-unit.size",
                         "constraints": [{"greater_or_equal": "512 MB"}]}},
            "interfaces": {"Standard": {"create": "noop.sh", "configure": "noop.sh",
                                        "start": "noop.sh"}}}},
        "topology_template": {
            "inputs": {"port": {"type": "integer", "default": 8080}},
            "node_templates": templates}}
    path = folder / "service.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def validate(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        topology, problems = load_topology(path)
        times.append(time.perf_counter() - start)
        assert topology is not None and not problems, [p.line() for p in problems.sorted()]
    return statistics.median(times)


def shells(count: int, folder: Path) -> float:
    start = time.perf_counter()
    for _ in range(count):
        subprocess.run(["sh", str(folder / "noop.sh")], check=True)
    return time.perf_counter() - start


def deploy(path: Path, root: Path) -> tuple[float, float, int]:
    service = Service(Workdir(root), default_wiring().frontends)
    cpu, start = time.process_time(), time.perf_counter()
    result = service.deploy(path, PrepareOptions())
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result.status == "ok", result.error
    ops = sum(1 for r in result.reports if r.text.startswith("Standard."))
    undone = service.undeploy(result.name)
    assert undone.status == "ok", undone.error
    return wall, cpu, ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,250,500,1000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-deploy", action="store_true")
    args = parser.parse_args()
    print(f"{'nodes':>6} {'validate s':>10} {'deploy s':>9} {'ops':>5} {'per op ms':>9} "
          f"{'sh s':>6} {'overhead/op ms':>14} {'cpu/op ms':>9}")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="laguna-bench-tosca-") as scratch:
            folder = Path(scratch)
            path = template(size, folder)
            checked = validate(path, args.runs)
            if args.no_deploy:
                print(f"{size:>6} {checked:>10.3f}")
                continue
            wall, cpu, ops = deploy(path, folder / "work")
            floor = shells(ops, folder)
            print(f"{size:>6} {checked:>10.3f} {wall:>9.2f} {ops:>5} {wall / ops * 1e3:>9.2f} "
                  f"{floor:>6.2f} {(wall - floor) / ops * 1e3:>14.2f} "
                  f"{cpu / ops * 1e3:>9.2f}")


if __name__ == "__main__":
    main()
