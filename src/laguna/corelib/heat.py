"""io.murano.system.HeatStack: one orchestration stack, kept in memory.

``new(sys:HeatStack, name => ..., description => ..., regionName => ...)``. The
template grows by :func:`merge` of fragments (``updateTemplate``) and goes to
the cloud on ``push`` through the run's services; nothing is sent while the
template equals what was pushed last. A template without resources deletes
the stack instead. ``push(isAsync)`` (also spelled ``async``, as the core's own
Instance called it) runs synchronously: services answer when the cloud has.

Instances deployed by ``pselect`` share their region's stack from several
threads: each method of a stack holds the stack's lock, and one push runs at
a time, but a push leaves the stack open while the cloud works (starting a
host's agent takes a while): other threads merge their fragments meanwhile,
the push that ends sees that its template is no longer the stack's, and the
next push sends them all at once, so the hosts of instances deployed
together start together. A push whose caller's changes went out with a push
that began after them returns at once (``HeatStack.push`` is not serialised
per stack by the method locks: the stack orders its pushes itself). The
outputs read after a push are those of a
template holding every fragment merged before that push began (the original
got the same from Heat, which refuses a second update of a stack while one
runs).
"""

from __future__ import annotations

import copy
import threading
import typing as t

from yaql.language import utils

from laguna.corelib.binding import prop, state
from laguna.corelib.declare import REQUIRED, native
from laguna.corelib.services import services_of
from laguna.lang.dispatch import freeze, thaw
from laguna.lang.errors import DslError
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

HEAT_CLASS = "io.murano.system.HeatStack"
HEAT_TEMPLATE_VERSION = "2013-05-23"


class HeatStackError(DslError):
    code = "LAG-E0522"
    murano_name = "murano.engine.system.heat_stack.HeatStackError"


def merge_lists(first: list[t.Any], second: list[t.Any]) -> list[t.Any]:
    """Items of both, each once, in the order first met."""
    result: list[t.Any] = []
    for item in [*first, *second]:
        if item not in result:
            result.append(item)
    return result


def merge(base: dict[str, t.Any], update: dict[str, t.Any]) -> dict[str, t.Any]:
    """The original engine's template merge: dicts merge recursively, lists
    become their union (order kept), other values are replaced; a string or
    null meeting a string or null of the other side keeps the base's value;
    other type clashes are errors."""
    result: dict[str, t.Any] = {}
    for key, old in base.items():
        result[key] = old
        if key not in update:
            continue
        new = update[key]
        if type(new) is not type(old):
            if isinstance(old, (str, type(None))) and isinstance(new, (str, type(None))):
                continue
            raise HeatStackError(
                f"cannot merge {type(new).__name__} into {type(old).__name__} at {key!r}")
        if isinstance(new, dict):
            result[key] = merge(old, new)
        elif isinstance(new, list):
            result[key] = merge_lists(old, new)
        else:
            result[key] = new
    for key, new in update.items():
        if key not in result:
            result[key] = new
    return result


class Stack:
    """The host-side state of one HeatStack object."""

    def __init__(self, name: str, description: str | None, services: t.Any) -> None:
        self.name = name
        self.description = description
        self.services = services
        self.template: dict[str, t.Any] | None = None
        self.parameters: dict[str, t.Any] = {}
        self.files: dict[str, t.Any] = {}
        self.hot_environment: t.Any = {}
        # changes since the stack was made: a push sees whether it sent the last
        self._changes = 0
        # the changes the cloud has (those made before the last push began)
        self._sent = 0
        self.applied = True
        self.pushing = threading.Lock()     # one push at a time
        self._outputs: dict[str, t.Any] | None = None
        self._frozen_outputs: t.Any = None
        #: (the held template, its MuranoPL form): valid while that very dict is held
        self._frozen_template: tuple[dict[str, t.Any], t.Any] | None = None
        self.lock = threading.RLock()

    @property
    def applied(self) -> bool:
        """True while the cloud has what the stack holds."""
        return self._applied

    @applied.setter
    def applied(self, applied: bool) -> None:
        if not applied:
            self._changes += 1
        self._applied = applied

    @property
    def outputs(self) -> dict[str, t.Any] | None:
        """The outputs of the last push (None: not read from the cloud yet)."""
        return self._outputs

    @outputs.setter
    def outputs(self, outputs: dict[str, t.Any] | None) -> None:
        self._outputs = outputs
        self._frozen_outputs = None

    def held(self) -> dict[str, t.Any]:
        """The template itself (read from the cloud the first time), not a copy:
        for reading only. Nothing changes it in place but :meth:`push` (its top
        level); :func:`merge` builds new dicts and lists."""
        with self.lock:
            if self.template is None:
                held = self.services.get_template(self.name)
                self.template = copy.deepcopy(held) if held else {}
                self.applied = True
            return self.template

    def current(self) -> dict[str, t.Any]:
        with self.lock:
            return copy.deepcopy(self.held())

    def frozen_current(self) -> t.Any:
        """The held template as MuranoPL data, frozen once per template rather
        than at every read: each instance's release reads the whole stack's
        template three times (its resources and outputs grow with every instance)."""
        with self.lock:
            held = self.held()
            if self._frozen_template is None or self._frozen_template[0] is not held:
                self._frozen_template = (held, freeze(held))
            return self._frozen_template[1]

    def set_frozen_template(self, template: t.Any) -> None:
        """``setTemplate`` with MuranoPL's argument: held thawed, and the argument
        itself kept as its MuranoPL form (what freezing the thawed copy would
        give, unless it holds a set, which thaws to a list)."""
        with self.lock:
            lossy: list[bool] = []
            thawed = _thawed(template, lossy)
            self.set_template(thawed)
            if type(template) is utils.FrozenDict and not lossy:
                self._frozen_template = (thawed, template)

    def set_template(self, template: dict[str, t.Any]) -> None:
        """Hold ``template`` itself: the caller gives it up (the MuranoPL method
        passes its argument thawed, i.e. freshly built)."""
        with self.lock:
            self.template = template
            self.parameters = {}
            self.applied = False

    def update_template(self, fragment: dict[str, t.Any]) -> None:
        with self.lock:
            version = fragment.get("heat_template_version", HEAT_TEMPLATE_VERSION)
            if version != HEAT_TEMPLATE_VERSION:
                raise HeatStackError(
                    f"Currently only heat_template_version {HEAT_TEMPLATE_VERSION} is supported.")
            current = self.held()
            self.template = merge(current, fragment)
            # compared only while the cloud has the template (a whole-template
            # walk per update otherwise); an update of an unapplied stack counts
            # as a change, so a push under way leaves it for the next one
            self.applied = self.applied and self.template == current

    def push(self) -> None:
        """Make the cloud have every change made before the call: send the
        held template unless the cloud has it, or a push that began after the
        call's last change sent it meanwhile. Threads deploying instances at
        once then share pushes: those waiting behind one that sent their
        servers return when it ends, rather than each pushing the one server
        that came while the last push ran. Holds the stack's lock only before
        and after the cloud's work (see the module's docstring)."""
        wanted = self._changes
        with self.pushing:
            self._push(wanted)

    def _push(self, wanted: int) -> None:
        with self.lock:
            if self.applied or self.template is None or self._sent >= wanted:
                return
            template = self.template
            if "heat_template_version" not in template or (
                    "description" not in template and self.description):
                self._frozen_template = None    # changed in place below
            template.setdefault("heat_template_version", HEAT_TEMPLATE_VERSION)
            if "description" not in template and self.description:
                template["description"] = self.description
            if template.get("resources") is None and template.get("Resources") is None:
                self.delete()
                return
            seen, parameters = self._changes, dict(self.parameters)
        # No copy: the cloud copies what it keeps, and the template is never
        # changed in place after this (updates build new dicts, see merge).
        outputs = self.services.push_stack(self.name, template, parameters)
        with self.lock:
            self.outputs = outputs
            self._sent = seen
            if self._changes == seen:   # else a fragment came meanwhile: not sent yet
                self.applied = True

    def output(self) -> dict[str, t.Any]:
        with self.lock:
            if self.outputs is None:
                self.outputs = self.services.stack_outputs(self.name)
            return dict(self.outputs or {})

    def frozen_output(self) -> t.Any:
        """:meth:`output` as MuranoPL data, frozen once per push rather than at
        every read: each instance's endDeploy reads the outputs of the whole
        stack, which grow with every instance."""
        with self.lock:
            if self._frozen_outputs is None:
                self._frozen_outputs = freeze(self.output())
            return self._frozen_outputs

    def delete(self) -> None:
        with self.lock:
            if self.held() or self.outputs is not None:
                self.services.delete_stack(self.name)
            self.template = {}
            self.outputs = {}
            self.applied = True


def _thawed(value: t.Any, lossy: list[bool]) -> t.Any:
    """``thaw(value)`` in the same walk that notes, in ``lossy``, a part that
    freezing the result would not give back (a set thaws to a list)."""
    kind = type(value)
    if kind is utils.FrozenDict or kind is dict:
        return {_thawed(k, lossy): _thawed(v, lossy) for k, v in value.items()}
    if kind is tuple or kind is list:
        return [_thawed(v, lossy) for v in value]
    if isinstance(value, (tuple, list, dict, utils.FrozenDict, set, frozenset)):
        lossy.append(True)      # a set, or a subclass of a container: as thaw() does
        return thaw(value)
    return value


class _AttachedServices:
    """The services attached to an executor when a stack uses them, not when the
    stack was made: a model loaded to be checked (no services) may be run later
    with a cloud attached (the MuranoPL front end's first deploy)."""

    def __init__(self, executor: t.Any) -> None:
        self._executor = executor

    def __getattr__(self, name: str) -> t.Any:
        return getattr(services_of(self._executor), name)


def stack_of(executor: t.Any, this: MuranoObject) -> Stack:
    return state(this, lambda part: Stack(str(prop(part, "name")), prop(part, "description"),
                                          _AttachedServices(executor)))


def bind_heat_stack(cls: MuranoClass) -> None:
    def method(fn: t.Callable[..., t.Any], thawed: bool = True) -> t.Callable[..., t.Any]:
        """``fn`` given plain Python arguments, or (``thawed`` false) the
        arguments as MuranoPL holds them."""
        def call(executor: t.Any, this: MuranoObject, frame: t.Any, **args: t.Any) -> t.Any:
            stack = stack_of(executor, this)
            with stack.lock:
                return fn(stack, **({k: thaw(v) for k, v in args.items()} if thawed
                                    else args))
        return call

    def set_parameters(stack: Stack, parameters: t.Any) -> None:
        stack.parameters = dict(parameters or {})
        stack.applied = False

    def set_files(stack: Stack, files: t.Any) -> None:
        stack.files = dict(files or {})
        stack.applied = False

    def set_hot_environment(stack: Stack, hotEnvironment: t.Any) -> None:  # noqa: N803
        stack.hot_environment = hotEnvironment
        stack.applied = False

    def reload(stack: Stack) -> dict[str, t.Any]:
        stack.template = None
        stack.parameters = {}
        return stack.held()

    # What a native method returns reaches MuranoPL frozen: the template and
    # the outputs are given frozen already, built once for what the stack holds
    # (the template grows with every instance of the environment, and is read
    # whole by each one's release).
    native(cls, "current", method(lambda stack: stack.frozen_current()), [])
    native(cls, "parameters", method(lambda stack: dict(stack.parameters)), [])
    native(cls, "reload", method(reload), [])
    native(cls, "setTemplate",
           method(lambda stack, template: stack.set_frozen_template(template), thawed=False),
           [("template", REQUIRED)])
    native(cls, "updateTemplate",
           method(lambda stack, template: stack.update_template(template)),
           [("template", REQUIRED)])
    native(cls, "setParameters", method(set_parameters), [("parameters", REQUIRED)])
    native(cls, "setFiles", method(set_files), [("files", REQUIRED)])
    native(cls, "setHotEnvironment", method(set_hot_environment),
           [("hotEnvironment", REQUIRED)])
    def push_unlocked(executor: t.Any, this: MuranoObject, frame: t.Any,
                      **args: t.Any) -> None:
        # the stack stays open to other threads while the cloud works
        stack_of(executor, this).push()

    # Not one call at a time: Stack.push serialises the cloud's work itself,
    # and lets a call whose changes went out with another's return at once.
    native(cls, "push", push_unlocked, [("isAsync", False), ("async", False)],
           serialised=False)
    native(cls, "output", method(lambda stack: stack.frozen_output()), [])
    native(cls, "delete", method(lambda stack: stack.delete()), [])
