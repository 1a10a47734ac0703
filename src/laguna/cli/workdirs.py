"""What the deployment commands share: ``--workdir``, ``--json`` and the service.

``--workdir DIR`` is accepted by the root group and by each command (before
or after the command name); the command's own wins. Without it,
``$LAGUNA_WORKDIR``, else the current directory.
"""

from __future__ import annotations

import dataclasses
import typing as t
from pathlib import Path

import click

# (re-exported: every deployment command imports its options from here)
from laguna.cli.results import catalog_option as catalog_option
from laguna.cli.results import current_project as current_project
from laguna.cli.results import current_workdir as current_workdir
from laguna.cli.results import emit_result as emit_result
from laguna.cli.results import fail as fail
from laguna.cli.results import json_option as json_option
from laguna.cli.results import print_json as print_json
from laguna.cli.results import result_json as result_json
from laguna.cli.results import show as show
from laguna.cli.shared import stdout_console as stdout_console
from laguna.cli.shared import workdir_option as workdir_option
from laguna.deploy.context import ResourcesFactory, no_resources
from laguna.deploy.frontend import FrontendRegistry
from laguna.deploy.service import Clock, Service, utcnow
from laguna.hosts.choice import HERE, KINDS, CloudRequest
from laguna.packages.source import PackageSource

F = t.TypeVar("F", bound=t.Callable[..., t.Any])

@dataclasses.dataclass
class Wiring:
    """What the deployment commands are built from; tests pass one as ``obj``."""

    frontends: FrontendRegistry
    resources: ResourcesFactory = no_resources
    clock: Clock = utcnow


def default_wiring() -> Wiring:
    """The built-in front ends (registered here, where the CLI wires them; the
    deployment layer knows none), then the installed ones, over each
    environment's cloud (the local one unless ``--cloud`` chose another;
    recording fakes for dry runs)."""
    from laguna.frontends import builtin_frontends
    from laguna.hosts.factory import host_resources
    registry = FrontendRegistry(builtin_frontends())
    registry.load_entry_points()
    return Wiring(registry, resources=host_resources)


def cloud_options(*, here: bool = False) -> t.Callable[[F], F]:
    """``--cloud KIND`` and ``--inventory FILE``; ``here``: ``--cloud here`` too (TOSCA's
    and descriptors' operations on this machine)."""
    def decorate(function: F) -> F:
        choices = ([HERE] if here else []) + list(KINDS)
        where = ("Where servers are: here (TOSCA: operations on this machine, its "
                 "default), or a cloud: " if here else "The cloud the environment's "
                 "servers are on (default: the one it was deployed on): ")
        function = click.option(
            "--inventory", type=click.Path(path_type=Path), metavar="FILE",
            help="The ssh cloud's servers (an inventory YAML file), for --cloud ssh "
                 "or a TOSCA node located on ssh (with any --cloud); kept like "
                 "--cloud.")(function)
        return click.option(
            "--cloud", type=click.Choice(choices),
            help=where + "local (hosts on this machine, the default), containers (a "
                 "podman container each), ssh (the servers of --inventory). Kept by the "
                 "environment: later commands need no --cloud; another cloud is refused "
                 "while the environment holds servers.")(function)
    return decorate


def cloud_request(cloud: str | None, inventory: Path | None) -> CloudRequest | None:
    """What ``--cloud`` and ``--inventory`` ask for (None: nothing)."""
    return CloudRequest.of(cloud, inventory)


def make_service(catalog: PackageSource | None = None) -> Service:
    """The working directory's service; ``catalog``: the catalog store its
    operations on stored environments may draw from."""
    ctx = click.get_current_context()
    wiring = ctx.find_object(Wiring)
    if wiring is None:
        wiring = default_wiring()
    return Service(current_workdir(), wiring.frontends, resources=wiring.resources,
                   clock=wiring.clock, catalog=catalog, project=current_project())


def key_values(pairs: t.Sequence[str], option: str) -> dict[str, str]:
    """``key=value`` strings as a mapping; a usage error names the bad one."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint=option)
        values[key] = value
    return values
