"""Validate every TOSCA template of other projects' example sets (fetched outside
the repository) and say which are refused and why.

    git clone https://opendev.org/openstack/tosca-parser /tmp/tosca-parser
    python3 benchmarks/tosca_examples.py /tmp/tosca-parser/samples

Every ``*.yaml`` with ``tosca_definitions_version`` and a ``topology_template``,
and every ``*.zip``/``*.csar``, is validated with no inputs. A template refused
only for inputs without a default or for artifact files the set does not
ship is counted apart ("valid once given inputs / artifact files"); for the
others the first remaining problem is printed. Results: docs/TOSCA.md.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

from laguna.frontends.tosca.topology import load_topology


def main() -> None:
    for root in map(Path, sys.argv[1:]):
        valid, needs = 0, 0
        refused = []
        reasons: collections.Counter[str] = collections.Counter()
        paths = [*sorted(root.rglob("*.yaml")), *sorted(root.rglob("*.zip")),
                 *sorted(root.rglob("*.csar"))]
        for path in paths:
            if path.suffix == ".yaml":
                text = path.read_text(errors="replace")
                if "topology_template" not in text or "tosca_definitions_version" not in text:
                    continue
            topology, problems = load_topology(path)
            if topology is not None:
                valid += 1
                continue
            rest = [p for p in problems.sorted()
                    if "a value is required (no default)" not in p.message
                    and p.kind != "missing_artifact"]
            if not rest:
                needs += 1
                continue
            refused.append((path, rest[0]))
            reasons[rest[0].kind] += 1
        print(f"{root}: {valid} valid, {needs} valid once given inputs / artifact files, "
              f"{len(refused)} refused {dict(reasons)}")
        for path, problem in refused:
            print(f"  {path.relative_to(root)}: {problem.kind}: {problem.entity}: "
                  f"{problem.message}")


if __name__ == "__main__":
    main()
