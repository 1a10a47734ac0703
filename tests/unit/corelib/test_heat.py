"""HeatStack: the template merge, the push/output cycle through services, and
stacks shared by threads (pselect)."""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
import types
import typing as t

import pytest
from yaql.language import utils

from laguna.corelib.binding import state
from laguna.corelib.heat import HeatStackError, Stack, _AttachedServices, merge
from laguna.corelib.services import RecordingServices, attach
from laguna.lang.dispatch import freeze
from laguna.lang.executor import Executor
from laguna.testing.packages import core_registry


def test_merge_dicts_recursively_and_lists_as_union() -> None:
    base = {"resources": {"a": {"type": "X", "properties": {"networks": [{"port": 1}]}}},
            "description": "old"}
    update = {"resources": {"a": {"properties": {"networks": [{"port": 1}, {"port": 2}],
                                                 "name": "n"}},
                            "b": {"type": "Y"}},
              "description": "new"}
    assert merge(base, update) == {
        "resources": {"a": {"type": "X", "properties": {"networks": [{"port": 1}, {"port": 2}],
                                                        "name": "n"}},
                      "b": {"type": "Y"}},
        "description": "new"}


def test_merge_keeps_base_when_string_meets_null() -> None:
    assert merge({"k": "kept"}, {"k": None}) == {"k": "kept"}
    assert merge({"k": None}, {"k": "ignored"}) == {"k": None}


def test_merge_refuses_other_type_clashes() -> None:
    with pytest.raises(HeatStackError):
        merge({"k": [1]}, {"k": {"a": 1}})


def test_update_rejects_other_template_versions() -> None:
    stack = Stack("s", None, RecordingServices())
    with pytest.raises(HeatStackError, match="2013-05-23"):
        stack.update_template({"heat_template_version": "2016-10-14"})


def test_push_sends_template_with_version_and_description_once() -> None:
    services = RecordingServices()
    stack = Stack("murano-env", "made by laguna", services)
    stack.update_template({"resources": {"vm": {"type": "OS::Nova::Server"}},
                           "outputs": {"vm-id": {"value": {"get_resource": "vm"}}}})
    stack.push()
    stack.push()   # nothing changed: nothing sent
    pushes = services.recorded("push")
    assert len(pushes) == 1
    assert pushes[0].target == "murano-env"
    assert pushes[0].data["template"] == {
        "resources": {"vm": {"type": "OS::Nova::Server"}},
        "outputs": {"vm-id": {"value": {"get_resource": "vm"}}},
        "heat_template_version": "2013-05-23", "description": "made by laguna"}
    assert stack.output()["vm-id"].startswith("vm-")


def test_frozen_outputs_are_built_once_a_push_and_follow_every_push() -> None:
    services = RecordingServices()
    stack = Stack("s", None, services)
    stack.update_template({"resources": {"vm": {"type": "OS::Nova::Server"}},
                           "outputs": {"vm-ips": {"value": {"get_attr": ["vm", "networks"]}}}})
    stack.push()
    first = stack.frozen_output()
    assert type(first) is utils.FrozenDict and type(first["vm-ips"]) is utils.FrozenDict
    assert stack.frozen_output() is first      # read again: not frozen again
    stack.update_template({"resources": {"b": {"type": "OS::Nova::Server"}},
                           "outputs": {"b-id": {"value": {"get_resource": "b"}}}})
    assert stack.frozen_output() is first      # nothing pushed: the same outputs
    stack.push()
    second = stack.frozen_output()
    assert sorted(second) == ["b-id", "vm-ips"] and second["b-id"].startswith("b-")
    stack.delete()
    assert stack.frozen_output() == utils.FrozenDict()


def test_the_frozen_template_is_built_once_per_template_held() -> None:
    services = RecordingServices()
    stack = Stack("s", "made by laguna", services)
    given = freeze({"resources": {"vm": {"type": "OS::Nova::Server", "properties": {
        "networks": [{"port": "p"}]}}}})
    stack.set_frozen_template(given)
    assert stack.template == {"resources": {"vm": {"type": "OS::Nova::Server", "properties": {
        "networks": [{"port": "p"}]}}}}
    assert stack.frozen_current() is given       # setTemplate's own argument
    stack.push()          # adds the version and the description to the held template
    pushed = stack.frozen_current()
    assert pushed == freeze({**stack.template}) and pushed["description"] == "made by laguna"
    assert stack.frozen_current() is pushed
    stack.update_template({"resources": {"b": {"type": "T"}}})
    assert sorted(stack.frozen_current()["resources"]) == ["b", "vm"]


def test_a_template_holding_a_set_reads_back_as_its_thawed_copy_frozen() -> None:
    stack = Stack("s", None, RecordingServices())
    given = freeze({"resources": {"a": {"type": "T", "properties": {"tags": frozenset({"x"})}}}})
    stack.set_frozen_template(given)
    assert stack.frozen_current() == freeze({"resources": {"a": {"type": "T", "properties": {
        "tags": ["x"]}}}})
    assert type(stack.frozen_current()["resources"]["a"]["properties"]["tags"]) is tuple


def test_push_without_resources_deletes_the_stack() -> None:
    services = RecordingServices()
    stack = Stack("s", None, services)
    stack.update_template({"resources": {"a": {"type": "T"}}})
    stack.push()
    stack.set_template({"outputs": {}})
    stack.push()
    assert [r.kind for r in services.log] == ["push", "delete"]
    assert stack.current() == {}


def test_current_reads_the_cloud_template_once() -> None:
    services = RecordingServices()
    services.stacks["s"] = {"resources": {"a": {"type": "T"}}}
    stack = Stack("s", None, services)
    assert stack.current() == {"resources": {"a": {"type": "T"}}}
    stack.update_template({"resources": {"b": {"type": "U"}}})
    assert set(stack.current()["resources"]) == {"a", "b"}


class SlowServices(RecordingServices):
    """Pushes take a while, and overlapping pushes are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.running = 0
        self.overlaps = 0

    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        self.running += 1
        self.overlaps += self.running > 1
        time.sleep(0.01)
        try:
            return super().push_stack(name, template, parameters)
        finally:
            self.running -= 1


def test_servers_pushed_from_parallel_threads_each_see_their_outputs() -> None:
    # what pselect($.instance.deploy()) does: each thread adds its server and
    # pushes, then reads its own outputs
    services = SlowServices()
    stack = Stack("murano-env", None, services)

    def deploy(i: int) -> dict[str, t.Any]:
        stack.update_template({"resources": {f"vm{i}": {"type": "OS::Nova::Server"}},
                               "outputs": {f"vm{i}-id": {"value": {"get_resource": f"vm{i}"}}}})
        stack.push()
        return stack.output()

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outputs = list(pool.map(deploy, range(8)))
    assert services.overlaps == 0
    assert all(f"vm{i}-id" in seen for i, seen in enumerate(outputs))
    assert set(stack.current()["resources"]) == {f"vm{i}" for i in range(8)}


def test_threads_reaching_a_new_object_at_once_share_one_state() -> None:
    class Part:
        extension: t.Any = None

    def slow_factory(part: t.Any) -> object:
        time.sleep(0.01)
        return object()

    part = Part()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda _: state(t.cast(t.Any, part), slow_factory), range(4)))
    assert all(m is made[0] for m in made)


def test_a_stack_uses_the_services_attached_when_it_pushes_not_when_it_was_made() -> None:
    """A model loaded to be checked (no services) is run later with a cloud
    attached: its stacks must reach that cloud."""
    executor = types.SimpleNamespace(host_services=None)
    stack = Stack("murano-env", None, _AttachedServices(executor))
    stack.update_template({"resources": {"vm": {"type": "OS::Nova::Server"}}})
    services = RecordingServices()
    attach(executor, services)
    stack.push()
    assert [(p.target, p.data["template"]["resources"]) for p in services.recorded("push")] \
        == [("murano-env", {"vm": {"type": "OS::Nova::Server"}})]


class GatedServices(RecordingServices):
    """A cloud whose first push waits until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        self.entered.set()
        assert self.gate.wait(10)
        return super().push_stack(name, template, parameters)


def test_a_fragment_merged_while_the_cloud_works_goes_out_with_the_next_push() -> None:
    services = GatedServices()
    stack = Stack("murano-env", None, services)
    stack.update_template({"resources": {"vm0": {"type": "OS::Nova::Server"}}})
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        first = pool.submit(stack.push)
        assert services.entered.wait(10)
        # the stack is open while its push waits for the cloud (starting hosts)
        stack.update_template({"resources": {"vm1": {"type": "OS::Nova::Server"}}})
        assert stack.output() == {}
        services.gate.set()
        first.result(10)
    assert not stack.applied            # vm1 is not in the cloud yet
    stack.push()
    stack.push()                        # nothing new: nothing sent
    assert [sorted(p.data["template"]["resources"]) for p in services.recorded("push")] \
        == [["vm0"], ["vm0", "vm1"]]
    assert stack.applied



class EachPushGated(RecordingServices):
    """A cloud whose every push waits for its own gate, while ``gated``."""

    def __init__(self) -> None:
        super().__init__()
        self.gated = True
        self.entered: queue.Queue[threading.Event] = queue.Queue()

    def push_stack(self, name: str, template: dict[str, t.Any],
                   parameters: dict[str, t.Any]) -> dict[str, t.Any]:
        if self.gated:
            gate = threading.Event()
            self.entered.put(gate)
            assert gate.wait(10)
        return super().push_stack(name, template, parameters)


class NotedLock:
    """A lock that lets the test wait until a thread has asked for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.asked = threading.Semaphore(0)

    def __enter__(self) -> None:
        self.asked.release()
        self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_a_push_whose_changes_another_push_sent_returns_at_once() -> None:
    # Threads deploying servers at once: two wait behind a push; the first of
    # them sends both their servers, and a third server comes while it does.
    # The second must not push again for that third server (its own went
    # out): else each push sends only the server that came during the last.
    services = EachPushGated()
    stack = Stack("murano-env", None, services)
    stack.pushing = lock = NotedLock()   # type: ignore[assignment]

    def server(name: str) -> None:
        stack.update_template({"resources": {name: {"type": "OS::Nova::Server"}}})

    server("vm0")
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        first = pool.submit(stack.push)
        first_gate = services.entered.get(timeout=10)      # vm0 is with the cloud
        assert lock.asked.acquire(timeout=10)
        waiting = []
        for name in ("vm1", "vm2"):
            server(name)
            waiting.append(pool.submit(stack.push))
            assert lock.asked.acquire(timeout=10)         # it waits behind the push
        first_gate.set()
        first.result(10)
        # one waiting thread sends vm0-vm2; vm3 comes while the cloud works
        second_gate = services.entered.get(timeout=10)
        server("vm3")
        second_gate.set()
        for future in waiting:
            future.result(10)
    assert [sorted(p.data["template"]["resources"]) for p in services.recorded("push")] \
        == [["vm0"], ["vm0", "vm1", "vm2"]]
    assert not stack.applied                   # vm3 goes out with its own thread's push
    services.gated = False
    stack.push()
    assert sorted(services.recorded("push")[-1].data["template"]["resources"]) \
        == ["vm0", "vm1", "vm2", "vm3"]
    assert stack.applied


def test_heat_stack_push_is_not_serialised_per_stack_by_the_method_locks() -> None:
    # the stack serialises the cloud's work itself; a method lock held for a
    # whole push would make each waiting thread push again (see above)
    registry = core_registry()
    executor = Executor(registry)
    cls = registry.find("io.murano.system.HeatStack")
    push = cls.find_method("push")
    assert executor.method_locks.policy(executor, push, cls.ref, None) == (False, ())
    update = cls.find_method("updateTemplate")
    assert executor.method_locks.policy(executor, update, cls.ref, None) == (True, ())
