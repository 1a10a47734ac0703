"""Assembly descriptors: validation time and engine overhead per transition, 50 -> 500.

An assembly of N resource instances (half a cluster, half an items list, each
mapping a property of a single hub, with a relationship from the hub to every
cluster instance) is validated (descriptor loading, catalog, topology and every
check) and then created up to Active and deleted with a driver that runs
nothing, so what is timed is the engine alone: ordering, waves, property
resolution, relationships and bookkeeping. A last line runs the N=50 case with
the real ``shell`` driver and no-op scripts, for scale.

    python3 benchmarks/bench_descriptors.py [--sizes 50,100,200,500] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import typing as t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))

from laguna.frontends.assembly.catalog import Catalog  # noqa: E402
from laguna.frontends.assembly.descriptor import load_descriptor  # noqa: E402
from laguna.frontends.assembly.drivers import Reply, Request, ShellDriver  # noqa: E402
from laguna.frontends.assembly.engine import Engine, Runtime, all_pairs  # noqa: E402
from laguna.frontends.assembly.frontend import new_model  # noqa: E402
from laguna.frontends.assembly.topology import Topology  # noqa: E402

RESOURCE = """name: resource::bench.node::1.0
properties:
  label: {type: string}
  hub: {type: string}
  index: {type: integer}
  ip: {type: string, read-only: true}
capabilities: {svc: {type: svc}}
requirements: {svc: {type: svc}}
operations: {Link: {}, Unlink: {}}
lifecycle: [Create, Install, Configure, Start, Stop, Uninstall, Delete]
"""
ASSEMBLY = """name: assembly::bench.big::1.0
properties:
  size: {{type: integer, default: {half}}}
  labels: {{type: list, default: {labels}}}
composition:
  hub:
    type: resource::bench.node::1.0
  cluster:
    type: resource::bench.node::1.0
    cluster: {{initial-quantity: '${{size}}', maximum-nodes: {maximum}}}
    properties:
      hub: {{value: '${{hub.ip}}'}}
      index: {{value: '${{instance.index}}'}}
  items:
    type: resource::bench.node::1.0
    items: ${{labels}}
    properties:
      label: {{value: '${{item}}'}}
      hub: {{value: 'hub at ${{hub.ip}}'}}
relationships:
  r:
    source-capabilities: [hub.svc]
    target-requirements: [cluster.svc]
    source-state: Active
    target-state: Active
    target-state-modifier: post
    properties: {{}}
    lifecycle:
      Create: [target.Link]
      Cease: [target.Unlink]
"""


class NullDriver:
    """Runs nothing; answers every script with success and an ip."""

    def available(self, package: Path, name: str) -> bool:
        return True

    def run(self, request: Request) -> Reply:
        return Reply(0, {"ip": "10.0.0.1"} if request.name == "Install" else {}, "", "")

    def release(self, instance: str) -> None:
        pass


class Quiet:
    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        pass

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        pass


def write_catalog(root: Path, size: int, with_scripts: bool) -> Path:
    package = root / "node"
    (package / "Definitions" / "lm").mkdir(parents=True)
    (package / "Definitions" / "lm" / "resource.yaml").write_text(RESOURCE)
    if with_scripts:
        scripts = package / "Lifecycle" / "shell" / "scripts"
        scripts.mkdir(parents=True)
        for name in ("Create", "Install", "Configure", "Start", "Stop", "Uninstall", "Delete",
                     "Link", "Unlink"):
            (scripts / f"{name}.sh").write_text("exit 0\n")
    half = (size - 1) // 2
    labels = [f"l{i}" for i in range(size - 1 - half)]
    path = root / "big.yaml"
    path.write_text(ASSEMBLY.format(half=half, maximum=half + 10, labels=labels))
    return path


def one(size: int, driver: t.Any, with_scripts: bool) -> tuple[float, float, int, int]:
    with tempfile.TemporaryDirectory(prefix="laguna-bench-") as scratch:
        root = Path(scratch)
        path = write_catalog(root, size, with_scripts)
        started = time.perf_counter()
        catalog = Catalog([root])
        descriptor, problems = load_descriptor(path)
        assert descriptor is not None and not problems, problems
        model = new_model("big", descriptor, [root], {}, "Active")
        runtime = Runtime(model, lambda: [])
        root_node = Topology(catalog, runtime).build(descriptor, "big", {})
        validated = time.perf_counter() - started
        engine = Engine(Topology(catalog, runtime), runtime, driver, root, Quiet(), "big")
        started = time.perf_counter()
        engine.converge(None, root_node, "Active")
        engine.pairs = all_pairs(root_node)
        engine.lower_tree(root_node, -1)
        ran = time.perf_counter() - started
        instances = sum(1 for _ in root_node.walk())
        assert runtime.instances == {}
        return validated, ran, engine.transitions, instances


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,100,200,500")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'instances':>9} {'validate ms':>12} {'transitions':>11} {'engine ms':>10} "
          f"{'us/transition':>14}")
    for size in [int(s) for s in args.sizes.split(",")]:
        results = [one(size, NullDriver(), False) for _ in range(args.runs)]
        validate = statistics.median(r[0] for r in results)
        ran = statistics.median(r[1] for r in results)
        transitions, instances = results[0][2], results[0][3]
        print(f"{instances:>9} {validate * 1000:>12.1f} {transitions:>11} {ran * 1000:>10.1f} "
              f"{ran / transitions * 1e6:>14.1f}")
    validate, ran, transitions, instances = one(50, ShellDriver(), True)
    print(f"shell driver, {instances} instances: {transitions} scripts in {ran:.2f} s "
          f"({ran / transitions * 1000:.2f} ms a script, process start included)")


if __name__ == "__main__":
    main()
