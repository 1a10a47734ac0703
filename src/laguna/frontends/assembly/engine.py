"""The intent engine: moves the instances of one assembly through their states.

One :class:`Engine` serves one intent. It holds the stored state (``model``:
instances, created relationships, cluster sizes), the wanted topology, a
:class:`~.drivers.Driver` and a reporter, and offers the intents of the spec
page: create, change-state, upgrade, scale-out/in, heal and delete. They are
built from three moves: raise a subtree in waves (:meth:`Engine.raise_tree`),
lower it in reverse (:meth:`Engine.lower_tree`), and one instance's step
(:meth:`Engine.step`), around which relationships are created and ceased.

There is no rollback: a failed script leaves every instance in the state it
reached (Install failing: ``Failed``), the model says so, and the next intent
starts from there.

``Broken`` (docs/DESCRIPTORS.md, "Broken") stands beside the states'
ladder: an instance enters it when a heal intent names it or its Integrity
check fails, and leaves it when healed. While Broken it has left every state
of the ladder, so its other relationships are ceased, and those that ask for
``Broken`` at its end are created; other intents leave it where it is.
"""

from __future__ import annotations

import graphlib
import typing as t
from pathlib import Path

from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.drivers import Driver, Request
from laguna.frontends.assembly.topology import Node, Pair, Topology, instance_id
from laguna.frontends.assembly.values import (
    MISSING,
    BadValue,
    Unresolved,
    convert,
    resolve,
)

CREATED, INSTALLED, INACTIVE, ACTIVE, FAILED, BROKEN = (
    "Created", "Installed", "Inactive", "Active", "Failed", "Broken")
RANK = {CREATED: 0, FAILED: 0, INSTALLED: 1, INACTIVE: 2, ACTIVE: 3}
UP = (("Create", CREATED), ("Install", INSTALLED), ("Configure", INACTIVE), ("Start", ACTIVE))
GOALS = (INSTALLED, INACTIVE, ACTIVE)
#: where a failed upward transition leaves the instance
ON_FAILURE = {"Install": FAILED, "Configure": INSTALLED, "Start": INACTIVE}


class Reporter(t.Protocol):
    def report(self, level: str, text: str, object_id: str | None = None) -> None: ...

    def component(self, object_id: str, type: str, name: str, state: str) -> None: ...


class Runtime:
    """The stored state of one assembly, as the engine changes it; also what
    :class:`~.topology.Topology` asks about existing instances."""

    def __init__(self, model: t.MutableMapping[str, t.Any],
                 others: t.Callable[[], list[dict[str, t.Any]]]) -> None:
        self.model = model
        model.setdefault("instances", {})
        model.setdefault("relationships", [])
        model.setdefault("clusters", {})
        self._others = others

    @property
    def instances(self) -> dict[str, dict[str, t.Any]]:
        return t.cast(dict[str, dict[str, t.Any]], self.model["instances"])

    def properties_of(self, name: str) -> dict[str, t.Any] | None:
        record = self.instances.get(name)
        return dict(record["properties"]) if record is not None else None

    def cluster_size(self, name: str) -> int | None:
        size = self.model["clusters"].get(name)
        return int(size) if size is not None else None

    def assemblies(self) -> list[dict[str, t.Any]]:
        return self._others()


class Engine:
    def __init__(self, topology: Topology, runtime: Runtime, driver: Driver, workdir: Path,
                 reporter: Reporter, assembly: str) -> None:
        self.topology = topology
        self.runtime = runtime
        self.driver = driver
        self.workdir = workdir
        self.reporter = reporter
        self.assembly = assembly
        self._pairs: list[Pair] = []
        #: the pairs each instance is an end of, in relationship order
        self._ends: dict[str, list[Pair]] = {}
        #: created pairs' keys (the model keeps them as a list, in creation order)
        self._created = set(t.cast(list[str], runtime.model["relationships"]))
        self.bound: set[str] = set()
        self.transitions = 0

    # -- records ------------------------------------------------------------------------
    def record(self, node: Node) -> dict[str, t.Any]:
        records = self.runtime.instances
        if node.name not in records:
            records[node.name] = {
                "id": instance_id(node.name), "component": node.component,
                "kind": node.descriptor.kind, "type": node.type, "index": node.index,
                "parent": node.parent.name if node.parent is not None else None,
                "state": None, "properties": dict(node.properties),
                "private": sorted(node.descriptor.private_properties),
                "package": str(node.descriptor.package or node.descriptor.path.parent),
                "descriptor_path": str(node.descriptor.path)}
        return records[node.name]

    def state(self, node: Node) -> str | None:
        record = self.runtime.instances.get(node.name)
        return record["state"] if record is not None else None

    def rank(self, node: Node) -> int:
        return RANK.get(self.state(node) or "", -1)

    def set_state(self, node: Node, state: str | None) -> None:
        if state is None:
            self.runtime.instances.pop(node.name, None)
            if not node.is_assembly:
                self.driver.release(node.name)
            self.reporter.component(node.name, node.type, node.component, "Deleted")
            return
        record = self.record(node)
        record["state"] = state
        self.reporter.component(node.name, node.type, node.component, state)

    def bind(self, node: Node) -> None:
        """Resolve a resource instance's properties once per intent, when first needed."""
        if node.name in self.bound or node.is_assembly:
            return
        record = self.record(node)
        record["properties"] = self.topology.resolve_node(node, record["properties"])
        record["type"] = node.type
        record["package"] = str(node.descriptor.package or node.descriptor.path.parent)
        record["descriptor_path"] = str(node.descriptor.path)
        self.bound.add(node.name)

    # -- scripts ------------------------------------------------------------------------
    def run(self, node: Node, name: str, extra: t.Mapping[str, str] | None = None,
            overlay: t.Mapping[str, t.Any] | None = None) -> None:
        """Run ``name`` (a transition or an operation) of resource ``node``."""
        record = self.record(node)
        package = Path(record["package"])
        self.transitions += 1
        if not self.driver.available(package, name):
            raise e.TransitionFailed(f"{name} of {node.name}: {node.type} has no script "
                                     f"for {name}")
        variables = {
            "LAGUNA_WORKDIR": str(self.workdir), "LAGUNA_ASSEMBLY": self.assembly,
            "LAGUNA_INSTANCE_NAME": node.name, "LAGUNA_INSTANCE_ID": str(record["id"]),
            "LAGUNA_INSTANCE_INDEX": str(node.index),
            "LAGUNA_COMPONENT": node.component, "LAGUNA_RESOURCE_TYPE": node.type,
            "LAGUNA_TRANSITION": name, **(extra or {})}
        properties = {**record["properties"], **(overlay or {})}
        self.reporter.report("info", f"{name} {node.name}", node.name)
        reply = self.driver.run(Request(package, name, self.workdir, variables, properties))
        if reply.exit_code != 0:
            detail = (reply.stderr or reply.stdout).strip()
            raise e.TransitionFailed(f"{name} of {node.name} exited with {reply.exit_code}",
                                     detail)
        if overlay is None:
            self.apply_outputs(node, reply.outputs)

    def apply_outputs(self, node: Node, outputs: t.Mapping[str, str]) -> None:
        record = self.record(node)
        declared = node.descriptor.all_properties()
        for key, text in outputs.items():
            prop = declared.get(key)
            if prop is None:  # only declared properties take reported values
                continue
            try:
                record["properties"][key] = convert(text, prop, node.descriptor.data_types)
            except BadValue as bad:
                raise e.TransitionFailed(f"output {key} of {node.name}: {bad}") from None

    # -- one step ------------------------------------------------------------------------
    def step(self, node: Node, transition: str | None, to: str | None) -> None:
        """Move ``node`` (a resource, or a nested assembly as a whole) one state."""
        before = self.rank(node)
        after = RANK.get(to or "", -1)
        # Broken is off the ladder: whatever comes next leaves it
        if after > before and self.state(node) != BROKEN:
            self.before_up(node, t.cast(str, to))
        else:
            self.before_down(node, self.state(node))
        if node.is_assembly:
            self.record(node)
            if after > before:
                self.raise_tree(node, after)
            else:
                self.lower_tree(node, after)
            self.refresh(node)
        else:
            self.bind(node)
            if transition is not None and transition in node.descriptor.lifecycle:
                try:
                    self.run(node, transition)
                except e.TransitionFailed:
                    if transition in ON_FAILURE:
                        self.set_state(node, ON_FAILURE[transition])
                    raise
                if transition == "Start" and "Integrity" in node.descriptor.lifecycle:
                    try:
                        self.run(node, "Integrity")
                    except e.TransitionFailed:
                        # Start did its work: the instance reached Active, and is broken
                        self.record(node)["state"] = ACTIVE
                        self.break_down(node)
                        raise
        self.set_state(node, to)
        # relationships are created on the way up only: going down (a Stop before a
        # reinstall's Uninstall) the instance reaches no state it was not past
        if to is not None and after > before:
            self.after(node)

    def raise_to(self, node: Node, rank: int) -> None:
        for transition, state in UP[:rank + 1]:
            if self.rank(node) < RANK[state] and self.state(node) != BROKEN:
                self.step(node, transition, state)

    def raise_tree(self, assembly: Node, rank: int) -> None:
        """Every instance below ``assembly`` up to ``rank``, level by level, in waves."""
        for level in assembly.levels:
            for transition, state in UP[:rank + 1]:
                for component in level:
                    for node in assembly.children.get(component, []):
                        # a Broken instance waits for its heal
                        if self.rank(node) < RANK[state] and self.state(node) != BROKEN:
                            self.step(node, transition, state)

    def lower_tree(self, assembly: Node, rank: int) -> None:
        """Every instance below ``assembly`` down to ``rank`` (-1: gone), reverse levels."""
        for level in reversed(assembly.levels):
            nodes = [n for c in level for n in assembly.children.get(c, [])]
            self.lower(nodes, rank)

    def lower(self, nodes: list[Node], rank: int) -> None:
        if rank < RANK[ACTIVE]:
            for node in nodes:
                if self.state(node) == ACTIVE:
                    self.step(node, "Stop", INACTIVE)
        if rank == RANK[INSTALLED]:
            for node in nodes:
                if self.state(node) == INACTIVE:
                    self.step(node, None, INSTALLED)
        if rank < RANK[INSTALLED]:
            for node in nodes:
                if self.state(node) in (INACTIVE, INSTALLED, FAILED, BROKEN):
                    self.step(node, "Uninstall", CREATED)
        if rank < 0:
            for node in nodes:
                if self.state(node) is not None:
                    self.step(node, "Delete", None)

    def refresh(self, assembly: Node) -> None:
        """Re-evaluate an assembly's mapped properties (read-only outputs of components)."""
        record = self.record(assembly) if assembly.parent is not None else None
        lookup = self.topology.lookup(assembly, None, None)
        for prop in assembly.descriptor.properties.values():
            if prop.has_value and isinstance(prop.value, str) and "${" in prop.value:
                try:
                    value = resolve(prop.value, lookup)
                    assembly.properties[prop.name] = convert(value, prop,
                                                             assembly.descriptor.data_types)
                except (Unresolved, BadValue):
                    assembly.properties[prop.name] = None
        if record is not None:
            record["properties"] = dict(assembly.properties)

    # -- relationships -----------------------------------------------------------------
    @property
    def pairs(self) -> list[Pair]:
        return self._pairs

    @pairs.setter
    def pairs(self, pairs: list[Pair]) -> None:
        self._pairs = pairs
        self._ends = {}
        for pair in pairs:
            for end in (pair.source.node, pair.target.node):
                if end is not None:
                    self._ends.setdefault(end.name, []).append(pair)

    def ends(self, node: Node) -> list[Pair]:
        """The pairs ``node`` is one end of (the same node object: pairs of another
        topology name other nodes)."""
        return [p for p in self._ends.get(node.name, ())
                if p.source.node is node or p.target.node is node]

    def end_rank(self, pair: Pair, source: bool) -> int:
        end = pair.source if source else pair.target
        return RANK[ACTIVE] if end.node is None else self.rank(end.node)

    def reached(self, pair: Pair, source: bool) -> bool:
        """Whether one end is where the relationship wants it: at or past its state on
        the ladder, or Broken when that is what it names (a reference counts as Active)."""
        rel = pair.relationship
        wanted = rel.source_state if source else rel.target_state
        end = pair.source if source else pair.target
        if wanted == BROKEN:
            return end.node is not None and self.state(end.node) == BROKEN
        return wanted in RANK and self.end_rank(pair, source) >= RANK[wanted]

    def before_up(self, node: Node, to: str) -> None:
        for pair in self.ends(node):
            if pair.key in self._created:
                continue
            rel = pair.relationship
            if pair.target.node is node and rel.target_modifier == "pre" \
                    and rel.target_state == to:
                if rel.source_state == BROKEN:
                    # nothing raises a source into Broken: created if it is there
                    if self.reached(pair, True):
                        self.create(pair)
                    continue
                if rel.source_state not in RANK:
                    continue
                if pair.source.node is not None and \
                        self.end_rank(pair, True) < RANK[rel.source_state]:
                    # the target needs its source further along than the waves took it
                    self.raise_to(pair.source.node, RANK[rel.source_state])
                self.create(pair)
            elif pair.source.node is node and rel.source_modifier == "pre" \
                    and rel.source_state == to and self.reached(pair, False):
                self.create(pair)

    def after(self, node: Node) -> None:
        for pair in self.ends(node):
            if pair.key in self._created:
                continue
            if self.reached(pair, True) and self.reached(pair, False):
                self.create(pair)

    def before_down(self, node: Node, leaving: str | None) -> None:
        if leaving is None:
            return
        level = RANK.get(leaving, 0)
        for pair in reversed(self.ends(node)):
            if pair.key not in self._created:
                continue
            rel = pair.relationship
            if (pair.source.node is node and RANK.get(rel.source_state, 0) >= level) or \
                    (pair.target.node is node and RANK.get(rel.target_state, 0) >= level):
                self.cease(pair)

    def create(self, pair: Pair) -> None:
        self.reporter.report("info", f"create relationship {pair.relationship.name} "
                             f"{pair.source.name} -> {pair.target.name}")
        for text, _ in pair.relationship.create:
            self.operation(pair, text)
        self.runtime.model["relationships"].append(pair.key)
        self._created.add(pair.key)

    def cease(self, pair: Pair) -> None:
        self.reporter.report("info", f"cease relationship {pair.relationship.name} "
                             f"{pair.source.name} -> {pair.target.name}")
        for text, _ in pair.relationship.cease:
            self.operation(pair, text)
        self.runtime.model["relationships"].remove(pair.key)
        self._created.discard(pair.key)

    def relationship_properties(self, pair: Pair, node: Node) -> dict[str, t.Any]:
        """The relationship's properties for an operation running on ``node``:
        ``${instance.*}`` is that instance (each member of a group in turn)."""
        def props(end: t.Any) -> t.Any:
            if end.node is None:
                return end.reference["properties"]
            if end.node.is_assembly:
                return end.node.properties
            return self.record(end.node)["properties"]

        base = self.topology.lookup(pair.assembly, None, None)

        def lookup(key: str) -> t.Any:
            if key == "source":
                return props(pair.source)
            if key == "target":
                return props(pair.target)
            if key == "instance":
                return {"name": node.name, "index": node.index, "id": instance_id(node.name)}
            return base(key)

        values = {}
        for prop in pair.relationship.properties.values():
            raw = prop.value if prop.has_value else prop.default
            try:
                values[prop.name] = convert(resolve(raw, lookup), prop,
                                            pair.assembly.descriptor.data_types)
            except Unresolved as missing:
                raise e.TransitionFailed(f"relationship {pair.relationship.name}: "
                                         f"${{{missing.path}}} names nothing") from None
            except BadValue as bad:
                raise e.TransitionFailed(f"relationship {pair.relationship.name}: "
                                         f"{prop.name}: {bad}") from None
        return values

    def operation(self, pair: Pair, text: str) -> None:
        side, _, op = text.partition(".")
        sources = {s.split(".")[0] for s, _ in pair.relationship.sources}
        end = pair.source if side == "source" or side in sources else pair.target
        if end.node is None:
            self.reporter.report("warning", f"{op} of referenced {end.name} not run: "
                                 "a reference's operations belong to its own assembly")
            return
        extra = {"LAGUNA_RELATIONSHIP": pair.relationship.name,
                 "LAGUNA_SOURCE_NAME": pair.source.name, "LAGUNA_TARGET_NAME": pair.target.name}
        self.call(end.node, op, extra, pair)

    def call(self, node: Node, op: str, extra: t.Mapping[str, str], pair: Pair) -> None:
        """Operation ``op`` of ``node``; an assembly's published one reaches its components."""
        if not node.is_assembly:
            self.bind(node)
            self.run(node, op, extra, self.relationship_properties(pair, node))
            return
        published = node.descriptor.operations[op]
        assert published.source is not None
        component, _, inner = published.source.partition(".")
        group = node.children.get(component, [])
        if published.multiple == "any":
            group = group[:1]
        elif published.multiple == "first":
            group = [n for n in group if n.index == 1]
        for member in group:
            self.call(member, inner, extra, pair)

    # -- intents -------------------------------------------------------------------------
    def converge(self, old: Node | None, new: Node, goal: str,
                 reinstall: t.Collection[str] = ()) -> None:
        """Make the stored instances those of ``new`` at ``goal``: tear down what
        disappeared (with ``old``'s relationships), reconfigure, upgrade or reinstall
        what changed, create what is new."""
        self.record_clusters(new)
        if old is not None:
            keep = {n.name for n in new.walk()}
            self.pairs = all_pairs(old)
            # relationships that disappear (a relationship or an end removed) cease first
            wanted = {p.key for p in all_pairs(new)}
            for pair in reversed(self.pairs):
                if pair.key in self._created and pair.key not in wanted:
                    self.cease(pair)
            gone = [n for n in old.walk() if n.name not in keep]
            gone_names = {n.name for n in gone}
            # children go before the nested assembly that holds them
            for level in reversed(_all_levels(old)):
                self.lower([n for n in level if n.name in gone_names], -1)
        self.pairs = all_pairs(new)
        self.changes(new, reinstall)
        self.raise_tree(new, RANK[goal])
        self.settle()
        self.refresh_all(new)

    def settle(self) -> None:
        """Create the relationships whose ends are where they need to be and that no
        transition brought about (one added by an upgrade between instances that stay)."""
        for pair in self.pairs:
            if pair.key not in self._created and self.reached(pair, True) and \
                    self.reached(pair, False):
                self.create(pair)

    def changes(self, root: Node, reinstall: t.Collection[str]) -> None:
        plans: dict[str, str] = {}
        nodes = {n.name: n for n in root.walk()}
        for node in nodes.values():
            record = self.runtime.instances.get(node.name)
            if node.is_assembly or record is None or record["state"] is None:
                continue
            old_props, old_type = dict(record["properties"]), record["type"]
            self.bind(node)
            new_props = record["properties"]
            declared = node.descriptor.all_properties()
            changed = {k for k in declared
                       if old_props.get(k) != new_props.get(k)
                       and not (declared.get(k) and declared[k].read_only)}
            if node.name in reinstall:
                plans[node.name] = "reinstall"
            elif old_type != node.type:
                plans[node.name] = "Upgrade" if "Upgrade" in node.descriptor.lifecycle \
                    else "reinstall"
            elif not changed:
                continue
            elif all(declared.get(k) is not None and declared[k].volatile for k in changed) \
                    and record["state"] == ACTIVE and "Reconfigure" in node.descriptor.lifecycle:
                plans[node.name] = "Reconfigure"
            else:
                plans[node.name] = "reinstall"
        if not plans:
            return
        order = self.upgrade_order(root, nodes)
        for name in order:
            if name not in plans:
                continue
            node = nodes[name]
            if plans[name] == "reinstall":
                self.reinstall(node)
            else:
                self.run(node, plans[name])
                self.reporter.component(node.name, node.type, node.component,
                                        self.state(node) or "")

    def upgrade_order(self, root: Node, nodes: dict[str, Node]) -> list[str]:
        """Instance names: components ordered by upgrade-dependencies, then levels."""
        result: list[str] = []
        for assembly in [root] + [n for n in root.walk() if n.is_assembly]:
            graph = {c.name: {d for d, _ in c.upgrade_dependencies}
                     for c in assembly.descriptor.composition.values()}
            level_of = {c: i for i, level in enumerate(assembly.levels) for c in level}
            sorter = graphlib.TopologicalSorter(graph)
            sorter.prepare()
            ordered: list[str] = []
            while sorter.is_active():
                ready = sorted(sorter.get_ready(), key=lambda c: level_of.get(c, 0))
                ordered.extend(ready)
                sorter.done(*ready)
            for component in ordered:
                result.extend(n.name for n in assembly.children.get(component, []))
        return [n for n in result if n in nodes]

    def reinstall(self, node: Node) -> None:
        """Stop, Uninstall, Install, Configure, Start (as far as it was): no Delete/Create."""
        was = max(self.held_rank(node), RANK[INSTALLED])
        self.lower([node], RANK[CREATED])
        self.raise_to(node, was)

    def held_rank(self, node: Node) -> int:
        """The instance's rank; for a Broken one, that of the state it broke in."""
        if self.state(node) == BROKEN:
            return RANK[self.runtime.instances[node.name].get("broken_from") or INSTALLED]
        return self.rank(node)

    def break_down(self, node: Node) -> None:
        """``node`` enters Broken: it leaves its state, so every relationship it is an
        end of ceases first (reverse order); then those that want it Broken are created
        (no script runs on entering Broken: ``pre`` and ``post`` are the same moment)."""
        for pair in reversed(self.ends(node)):
            if pair.key in self._created:
                self.cease(pair)
        self.record(node)["broken_from"] = self.state(node)
        self.set_state(node, BROKEN)
        self.after(node)

    def heal(self, node: Node) -> None:
        """The heal intent: the instance enters Broken (unless it is already), then Heal
        runs if its resource declares it (a failure leaves it Broken), else it is
        reinstalled; its Broken relationships cease before it leaves Broken, and it
        goes back to the state it broke in. A nested assembly is reinstalled whole; an
        instance below Installed (Failed, Created) is reinstalled up to Installed."""
        if node.is_assembly:
            self.reinstall(node)
            return
        if self.state(node) in GOALS:
            self.break_down(node)
        if self.state(node) != BROKEN:
            self.reinstall(node)
            return
        record = self.record(node)
        back = str(record.get("broken_from") or INSTALLED)
        self.bind(node)
        if "Heal" in node.descriptor.lifecycle:
            self.run(node, "Heal")
            self.before_down(node, BROKEN)
            record.pop("broken_from", None)
            record.pop("integrity", None)    # what watching found is healed
            self.set_state(node, back)
            self.after(node)
            return
        self.before_down(node, BROKEN)
        # the reinstall takes it down from the state it broke in, and up again
        record["state"] = back
        record.pop("broken_from", None)
        record.pop("integrity", None)
        self.reinstall(node)

    def refresh_all(self, root: Node) -> None:
        for node in reversed(list(root.walk())):
            if node.is_assembly:
                self.refresh(node)
        self.refresh(root)

    def record_clusters(self, root: Node) -> None:
        clusters = self.runtime.model["clusters"]
        for assembly in [root] + [n for n in root.walk() if n.is_assembly]:
            for comp in assembly.descriptor.composition.values():
                if comp.cluster is not None:
                    clusters[f"{assembly.name}__{comp.name}"] = \
                        len(assembly.children.get(comp.name, []))


def all_pairs(root: Node) -> list[Pair]:
    pairs = list(root.pairs)
    for node in root.walk():
        pairs.extend(node.pairs)
    return pairs


def _all_levels(root: Node) -> list[list[Node]]:
    """Nodes grouped by level, parents' levels holding their nested children after them."""
    result: list[list[Node]] = []
    for level in root.levels:
        nodes = [n for c in level for n in root.children.get(c, [])]
        result.append(nodes)
        for node in nodes:
            if node.is_assembly:
                result.extend(_all_levels(node))
    return result


__all__ = ["Engine", "Runtime", "RANK", "GOALS", "MISSING"]
