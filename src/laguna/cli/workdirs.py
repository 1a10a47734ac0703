"""What the deployment commands share: ``--workdir``, ``--json`` and the service.

``--workdir DIR`` is accepted by the root group and by each command (before
or after the command name); the command's own wins. Without it,
``$LAGUNA_WORKDIR``, else the current directory.
"""

from __future__ import annotations

import dataclasses
import json
import os
import typing as t
from pathlib import Path

import click

# (re-exported: every deployment command imports its options from here)
from laguna.cli.shared import WORKDIR_KEY
from laguna.cli.shared import stdout_console as stdout_console
from laguna.cli.shared import workdir_option as workdir_option
from laguna.deploy.context import ResourcesFactory, no_resources
from laguna.deploy.errors import DeployError
from laguna.deploy.frontend import FrontendRegistry
from laguna.deploy.result import REJECTED, Action, Result, actions_table
from laguna.deploy.service import Clock, Service, utcnow
from laguna.deploy.workdir import Workdir, resolve_workdir
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
            help="The ssh cloud's servers (an inventory YAML file); kept like "
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


def catalog_option(function: F) -> F:
    """``-l CATALOG``, accepted (and not needed) by commands that read only the store,
    so that every assembly command line can carry the same options."""
    return click.option("-l", "--lib", "_libs", multiple=True, expose_value=False,
                        type=click.Path(path_type=Path),
                        help="Accepted for symmetry with deploy; not used.")(function)


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON object on stdout and nothing else.")(function)


def current_workdir() -> Workdir:
    ctx = click.get_current_context()
    return Workdir(resolve_workdir(ctx.meta.get(WORKDIR_KEY), os.environ, Path.cwd()))


def make_service(catalog: PackageSource | None = None) -> Service:
    """The working directory's service; ``catalog``: the catalog store its
    operations on stored environments may draw from."""
    ctx = click.get_current_context()
    wiring = ctx.find_object(Wiring)
    if wiring is None:
        wiring = default_wiring()
    return Service(current_workdir(), wiring.frontends, resources=wiring.resources,
                   clock=wiring.clock, catalog=catalog)


def print_json(data: object) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def show(renderable: object, err: bool = False) -> None:
    """Print a domain object through its ``__rich_console__`` (no trailing blanks),
    on stderr with ``err``."""
    console = stdout_console()
    if console.is_terminal and not err:
        console.print(renderable)
        return
    with console.capture() as captured:
        console.print(renderable)
    click.echo("\n".join(line.rstrip() for line in captured.get().splitlines()), err=err)


def fail(error: DeployError, as_json: bool) -> t.NoReturn:
    """One clear line (or the error object with --json), exit status 2."""
    if as_json:
        print_json({"error": {"kind": error.kind, "message": error.message}})
    else:
        click.echo(str(error), err=True)
    raise SystemExit(2)


def key_values(pairs: t.Sequence[str], option: str) -> dict[str, str]:
    """``key=value`` strings as a mapping; a usage error names the bad one."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key:
            raise click.BadParameter(f"expected key=value, got {pair!r}", param_hint=option)
        values[key] = value
    return values


def result_json(result: Result) -> object:
    """A result as JSON: the shared shape, or its blueprint language's own (assembly)."""
    if result.language == "assembly" or (result.language is None and _assembly_command()):
        from laguna.frontends.assembly import assembly_json
        return assembly_json(result)
    return result.to_json()


def _assembly_command() -> bool:
    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.info_name == "intent"


def emit_result(result: Result, as_json: bool, exit_code: int | None = None) -> t.NoReturn:
    """Print a result (the JSON object, or its rendering; a rejection as one line
    on stderr) and exit: 0 ok, 1 failed, 2 rejected (or ``exit_code``)."""
    if as_json:
        print_json(result_json(result))
    elif result.status == REJECTED and result.error is not None:
        click.echo(f"error[{result.error.kind}]: {result.error.message}", err=True)
        listed = result.error.details.get("actions")
        if listed:
            # an action refused (deploy.actions): what could have been meant
            show(actions_table([Action.from_json(a) for a in listed]), err=True)
    elif result.language == "assembly":
        from laguna.frontends.assembly import AssemblyView
        show(AssemblyView(result))
    else:
        show(result)
    raise SystemExit(result.exit_code if exit_code is None else exit_code)
