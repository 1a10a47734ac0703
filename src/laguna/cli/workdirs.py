"""What the deployment commands share: ``--workdir``, ``--json`` and the service.

``--workdir DIR`` is accepted by the root group and by each command (before
or after the command name); the command's own wins. Without it,
``$LAGUNA_WORKDIR``, else the current directory.
"""

from __future__ import annotations

import dataclasses
import typing as t

import click

# (re-exported: every deployment command imports its options from here)
from laguna.cli.results import catalog_option as catalog_option
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
from laguna.packages.source import PackageSource

@dataclasses.dataclass
class Wiring:
    """What the deployment commands are built from; tests pass one as ``obj``."""

    frontends: FrontendRegistry
    resources: ResourcesFactory = no_resources
    clock: Clock = utcnow


def default_wiring() -> Wiring:
    """The built-in front ends (registered here, where the CLI wires them; the
    deployment layer knows none), then the installed ones, over the local
    cloud (recording fakes for dry runs)."""
    from laguna.frontends import builtin_frontends
    from laguna.frontends.muranopl import muranopl_resources
    registry = FrontendRegistry(builtin_frontends())
    registry.load_entry_points()
    return Wiring(registry, resources=muranopl_resources)


def make_service(catalog: PackageSource | None = None) -> Service:
    """The working directory's service; ``catalog``: the catalog store its
    operations on stored environments may draw from."""
    ctx = click.get_current_context()
    wiring = ctx.find_object(Wiring)
    if wiring is None:
        wiring = default_wiring()
    return Service(current_workdir(), wiring.frontends, resources=wiring.resources,
                   clock=wiring.clock, catalog=catalog)


def key_values(pairs: t.Sequence[str], option: str) -> dict[str, str]:
    """``key=value`` strings as a mapping; a usage error names the bad one."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint=option)
        values[key] = value
    return values
