"""AMP's explicit ways to hold a node back (seed 003, "Depends On, Happens-Before
Semantics, and Concurrency"), as rules the validator checks and the runtime applies:

- the implementation artifacts ``BlockUntilRunning`` (wait for a target to be
  running) and ``NoOp`` (run nothing, but evaluate the inputs, so a get_attribute
  input still waits);
- ``timeout`` and ``abort_if_on_fire``, inputs of a BlockUntilRunning operation
  or properties of a ``RequiresRunning`` relationship: a :class:`Hold`;
- the get_attribute wait modes (AMP's global ``brooklyn.tosca.get_attribute_mode``):
  :class:`WaitSettings`, read from the topology's metadata and ``--set``;
- AMP's ``latch.<phase>`` configuration of a node: :data:`LATCHES`.
"""

from __future__ import annotations

import dataclasses
import typing as t

import yaml

from laguna.frontends.tosca import values
from laguna.frontends.tosca.problems import BAD_FUNCTION, INVALID_TEMPLATE, TYPE_MISMATCH
from laguna.frontends.tosca.types import is_function

NOOP = "brooklyn.tosca.artifacts.Implementation.NoOp"
BLOCK_UNTIL_RUNNING = "brooklyn.tosca.artifacts.Implementation.BlockUntilRunning"
BUILTINS = (BLOCK_UNTIL_RUNNING, NOOP)

MODE_KEY = "brooklyn.tosca.get_attribute_mode"
#: laguna's: AMP's wait_unless_down waits one minute, fixed
DOWN_WAIT_KEY = "laguna.tosca.get_attribute_down_wait"
SETTING_KEYS = (MODE_KEY, DOWN_WAIT_KEY)
MODES = ("wait_always", "wait_unless_down", "wait_unless_on_fire", "no_wait")
#: the node states of a node on its way to running (AMP's STARTING); any other
#: state is "down" for wait_unless_down
STARTING_STATES = frozenset({"initial", "creating", "created", "configuring", "configured",
                             "starting"})


#: AMP's latches (``latch.<phase>`` given as a property of a node template) and the
#: point of the TOSCA lifecycle each holds until its value is evaluated (a
#: get_attribute or attributeWhenReady waits there as it does anywhere): AMP's
#: start latch holds the whole start of the entity, which in AMP's mapping of TOSCA
#: runs create, configure and start; install, customize and launch are AMP's
#: phases of that start that TOSCA calls create, configure and start
LATCHES = {"start": "lifecycle", "setup": "create", "install.resources": "create",
           "install": "create", "customize.resources": "configure",
           "customize": "configure", "launch.resources": "start", "launch": "start"}
LATCH_PREFIX = "latch."


class Types(t.Protocol):
    """The part of the type registry the rules need."""

    def resolve(self, kind: str, name: object) -> object: ...
    def derives(self, kind: str, name: object, ancestor: object) -> bool: ...


#: (key of the offending entry, or None for the whole map; kind; message)
Finding = tuple[t.Optional[str], str, str]


# -- built-in implementations ------------------------------------------------------------
def builtin_type(types: Types, type_name: object) -> str | None:
    """Which of AMP's built-in implementation types ``type_name`` is or derives from."""
    if types.resolve("artifact_types", type_name) is None:
        return None     # most often a script's file name: no type at all
    for builtin in BUILTINS:
        if types.derives("artifact_types", type_name, builtin):
            return builtin
    return None


def builtin_of(types: Types, implementation: object,
               artifacts: t.Mapping[str, object]) -> str | None:
    """The built-in implementation an operation's ``implementation`` names, if any: a
    built-in type's name, ``{primary: <type name>}``, ``{primary: {type: <type>}}``, or
    the name of one of ``artifacts`` (the node's artifact definitions) of such a type."""
    primary = implementation.get("primary") if isinstance(implementation, dict) \
        else implementation
    if isinstance(primary, dict):
        return builtin_type(types, primary.get("type"))
    if not isinstance(primary, str):
        return None
    artifact = artifacts.get(primary)
    if isinstance(artifact, dict):
        return builtin_type(types, artifact.get("type"))
    return builtin_type(types, primary)


#: a node template's assigned property values, by node name (SELF resolved)
Properties = t.Callable[[object], t.Mapping[str, t.Any]]


def check_block_inputs(inputs: t.Mapping[str, t.Any], relationship: bool,
                       nodes: t.Collection[str], input_values: t.Mapping[str, t.Any],
                       properties: Properties) -> list[Finding]:
    """What is statically wrong with the inputs of a BlockUntilRunning operation:
    ``target`` (a node name, or a function giving one; optional in a relationship
    operation, where it is the relationship's target), ``timeout`` and
    ``abort_if_on_fire``. A target given by get_input, or by get_property of a value
    the template assigns, is checked here; any other function when it runs."""
    found: list[Finding] = []
    target = inputs.get("target")
    if target is None:
        if not relationship:
            found.append((None, INVALID_TEMPLATE, "BlockUntilRunning needs a target input "
                          "(the node to wait for) outside a relationship operation"))
    else:
        named = _static_target(target, input_values, properties)
        if isinstance(named, str) and named not in nodes and \
                named not in ("SELF", "SOURCE", "TARGET", "HOST"):
            found.append(("target", BAD_FUNCTION,
                          f"BlockUntilRunning target: unknown node template {named!r}"))
        elif named is not None and not isinstance(named, str):
            found.append(("target", TYPE_MISMATCH, f"BlockUntilRunning target: expected a "
                          f"node name, got {named!r}"))
    for key, message in hold_problems(inputs):
        found.append((key, TYPE_MISMATCH, f"BlockUntilRunning {message}"))
    return found


def _static_target(target: object, input_values: t.Mapping[str, t.Any],
                   properties: Properties) -> object:
    """The target as far as it is known before the deploy (None: known only then)."""
    if not is_function(target):
        return target
    ((name, args),) = t.cast(dict[str, t.Any], target).items()
    if name == "get_input":
        key = args[0] if isinstance(args, list) and args else args
        return input_values.get(key) if isinstance(key, str) else None
    if name == "get_property" and isinstance(args, list) and len(args) == 2:
        value = properties(args[0]).get(args[1])
        return None if is_function(value) else value
    return None


# -- timeout and abort_if_on_fire --------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Hold:
    """How a wait for a node to be running ends besides the node running."""

    #: seconds; None: no limit of its own (AMP's "forever")
    timeout: float | None = None
    #: fail at once when the node waited for is in ``error`` (AMP's on fire)
    abort_if_on_fire: bool = False


def hold_problems(given: t.Mapping[str, t.Any]) -> list[tuple[str, str]]:
    """(key, message) for each of ``timeout`` and ``abort_if_on_fire`` in ``given``
    that has a wrong value (functions are checked when evaluated)."""
    found: list[tuple[str, str]] = []
    timeout = given.get("timeout")
    if timeout is not None and not is_function(timeout) and _seconds(timeout) is None:
        found.append(("timeout", f"timeout: {timeout!r} is not a time (such as 30 s)"))
    abort = given.get("abort_if_on_fire")
    if abort is not None and not is_function(abort) and _flag(abort) is None:
        found.append(("abort_if_on_fire",
                      f"abort_if_on_fire: {abort!r} is not true or false"))
    return found


def hold_of(given: t.Mapping[str, t.Any]) -> Hold:
    """The Hold ``given`` (evaluated inputs or properties) asks for; ValueError with the
    reason when a value is wrong."""
    problems = hold_problems(given)
    if problems:
        raise ValueError(problems[0][1])
    timeout = given.get("timeout")
    abort = given.get("abort_if_on_fire")
    return Hold(None if timeout is None else _seconds(timeout),
                False if abort is None else bool(_flag(abort)))


def hold_text(given: t.Mapping[str, t.Any]) -> str:
    """``timeout`` and ``abort_if_on_fire`` as the dry-run plan shows them: as written
    (a function as its YAML), ``none`` and ``false`` when not given."""
    def shown(value: object) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return str(value) if not isinstance(value, (dict, list)) else \
            yaml.safe_dump(value, default_flow_style=True).strip()
    timeout = given.get("timeout")
    abort = given.get("abort_if_on_fire", False)
    return f"timeout {'none' if timeout is None else shown(timeout)}, " \
        f"abort_if_on_fire {shown(abort)}"


def _seconds(value: object) -> float | None:
    return values.scalar("scalar-unit.time", value) if isinstance(value, str) else None


def _flag(value: object) -> bool | None:
    """A boolean, also written as the text true or false (an input given as text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


# -- get_attribute wait modes ------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class WaitSettings:
    """How get_attribute and get_operation_output wait for a truthy value."""

    mode: str = "wait_always"
    #: wait_unless_down: how long to wait once the target is not starting
    down_wait: float = 60.0

    def merged(self, given: t.Mapping[str, t.Any]) -> WaitSettings:
        """These settings with the keys of ``given`` (already checked) applied."""
        mode = given.get(MODE_KEY, self.mode)
        down = given.get(DOWN_WAIT_KEY)
        return WaitSettings(str(mode), self.down_wait if down is None else
                            t.cast(float, _seconds(down)))


def setting_problems(given: t.Mapping[str, t.Any]) -> list[tuple[str, str]]:
    """(key, message) for each wait setting in ``given`` with a wrong value."""
    found: list[tuple[str, str]] = []
    mode = given.get(MODE_KEY)
    if mode is not None and mode not in MODES:
        found.append((MODE_KEY, f"{MODE_KEY}: {mode!r} is not one of {', '.join(MODES)}"))
    down = given.get(DOWN_WAIT_KEY)
    if down is not None and _seconds(down) is None:
        found.append((DOWN_WAIT_KEY, f"{DOWN_WAIT_KEY}: {down!r} is not a time (such as "
                                     "90 s)"))
    return found
