"""``laguna intent NAME VERB``: an intent on an assembly (assembly descriptors).

upgrade, change-state, scale-out, scale-in and heal run as actions of the
environment; delete as its undeploy.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from laguna.cli.progress import progress_view
from laguna.cli.sources import catalog_sources, db_url_option
from laguna.cli.workdirs import (
    cloud_options,
    cloud_request,
    emit_result,
    fail,
    json_option,
    key_values,
    make_service,
    stdout_console,
    workdir_option,
)
from laguna.deploy.errors import Rejected
from laguna.deploy.inputs import InputsFileError, read_inputs_file
from laguna.deploy.service import Service
from laguna.frontends.assembly.errors import INVALID_PROPERTY_VALUE
from laguna.hosts.choice import CloudRequest

VERBS = ("upgrade", "change-state", "scale-out", "scale-in", "heal", "delete")
#: the argument each verb takes, by the name the front end reads
ARGUMENT = {"change-state": "state", "scale-out": "component", "scale-in": "component",
            "heal": "instance"}


@click.command("intent")
@click.argument("name")
@click.argument("verb", type=click.Choice(VERBS))
@click.argument("target", required=False)
@click.option("--descriptor", type=click.Path(path_type=Path),
              help="upgrade: the new assembly descriptor.")
@click.option("--input", "inputs", multiple=True, metavar="K=V",
              help="upgrade: a property value (converted to its type); repeatable.")
@click.option("--inputs", "inputs_file", type=click.Path(path_type=Path, exists=True),
              help="upgrade: a YAML (or JSON) map of property values.")
@click.option("-l", "--lib", "libs", multiple=True, type=click.Path(path_type=Path),
              help="A catalog folder of descriptors and resource packages; repeatable.")
@cloud_options()
@db_url_option
@json_option
@workdir_option
def intent(name: str, verb: str, target: str | None, descriptor: Path | None,
           inputs: tuple[str, ...], inputs_file: Path | None, libs: tuple[Path, ...],
           cloud: str | None, inventory: Path | None, db_url: str | None,
           as_json: bool) -> None:
    """Run intent VERB on assembly NAME (TARGET: a state, a cluster component or an
    instance name, as the verb needs). Descriptors come from the -l folders, then
    the packages the environment keeps, then the catalog store."""
    with catalog_sources(db_url) as stores:
        _run(make_service(stores[0] if stores else None), name, verb, target, descriptor,
             inputs, inputs_file, libs, as_json, cloud_request(cloud, inventory))


def _run(service: Service, name: str, verb: str, target: str | None,
         descriptor: Path | None, inputs: tuple[str, ...], inputs_file: Path | None,
         libs: tuple[Path, ...], as_json: bool,
         cloud: CloudRequest | None = None) -> None:
    arguments = {f"input.{k}": v for k, v in key_values(inputs, "--input").items()}
    if inputs_file is not None:
        # read here as deploy reads it (a YAML or JSON map); the run takes it as JSON
        try:
            arguments["laguna.inputs"] = json.dumps(read_inputs_file(inputs_file))
        except InputsFileError as error:
            fail(Rejected(INVALID_PROPERTY_VALUE, str(error)), as_json)
    if libs:
        arguments["laguna.libs"] = json.dumps([str(p.resolve()) for p in libs])
    if descriptor is not None:
        arguments["descriptor"] = str(descriptor.resolve())
    if verb in ARGUMENT:
        if target is None:
            raise click.UsageError(f"intent {verb} needs a {ARGUMENT[verb]}")
        arguments[ARGUMENT[verb]] = target
    if as_json:
        result = service.undeploy(name, cloud=cloud) if verb == "delete" else \
            service.action(name, name, verb, arguments, cloud=cloud)
    else:
        with progress_view(stdout_console(), f"{verb} {name}") as view:
            result = service.undeploy(name, sink=view, cloud=cloud) if verb == "delete" \
                else service.action(name, name, verb, arguments, sink=view, cloud=cloud)
    emit_result(result, as_json)
