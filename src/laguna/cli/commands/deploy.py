"""``laguna deploy``: deploy a blueprint into a named environment."""

from __future__ import annotations

import sys
import typing as t
from pathlib import Path

import click

from laguna.cli.progress import progress_view
from laguna.cli.sources import catalog_sources, db_url_option
from laguna.cli.workdirs import (
    cloud_options,
    current_workdir,
    emit_result,
    fail,
    json_option,
    key_values,
    make_service,
    stdout_console,
    workdir_option,
)
from laguna.cloud.errors import IsolationError
from laguna.deploy.errors import CLOUD_ERROR, MODEL_INVALID, Rejected
from laguna.deploy.frontend import PrepareOptions
from laguna.deploy.result import REJECTED, ErrorInfo, Result
from laguna.packages.source import PackageSource

if t.TYPE_CHECKING:
    from laguna.forms import CloudChoices


@click.command("deploy")
@click.argument("model", type=click.Path(path_type=Path))
@click.option("-l", "--lib", "libs", multiple=True, type=click.Path(path_type=Path),
              help="A folder of packages, or a package (folder or zip), the model uses; "
                   "repeatable. Later commands on the environment need none.")
@click.option("--name", help="The environment (default: the name the model gives, else "
                             "the file's name without its extension).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A value for the blueprint's inputs (MuranoPL: an application's "
                   "property; TOSCA: an input, or the settings "
                   "brooklyn.tosca.get_attribute_mode and "
                   "laguna.tosca.get_attribute_down_wait; assembly: a property); "
                   "repeatable. An unknown KEY is refused, naming the known ones.")
@click.option("--inputs", "inputs_file", type=click.Path(path_type=Path), metavar="FILE",
              help="The blueprint's input values: a YAML (or JSON) map of names to values, "
                   "in every language; --set and --input win.")
@cloud_options(here=True)
@click.option("--dry-run", is_flag=True,
              help="Run against a recording cloud and agent; print the stack templates "
                   "and execution plans that would be sent, then what would be created, "
                   "changed and destroyed. Nothing is applied or kept.")
@click.option("--isolation", type=click.Choice(["loopback", "netns"]),
              help="How the local cloud's hosts are kept apart: loopback (an address "
                   "of 127.42.0.0/16 each, the default) or netns (a network namespace "
                   "each, root and iproute2 needed). Kept by the working directory; "
                   "changed only while it holds no deployed environment.")
@click.option("--address-range", metavar="CIDR",
              help="The hosts' addresses (default 127.42.0.0/16 for loopback, "
                   "198.18.0.0/15 for netns). Kept like --isolation.")
@click.option("--form", "form_answers", type=click.Path(path_type=Path), metavar="FILE",
              help="MuranoPL packages: fill the package's forms (its UI/ui.yaml) with "
                   "the answers in FILE (a YAML map of form.field to values) and deploy "
                   "the application they make (docs/FORMS.md); `--form -` asks them "
                   "field by field on the terminal.")
@click.option("--input", "inputs", multiple=True, metavar="K=V",
              help="Assembly descriptors: a property value (converted to its type).")
@click.option("--state", "intended_state", metavar="STATE",
              help="Assembly descriptors: Installed, Inactive or Active (default).")
@db_url_option
@json_option
@workdir_option
def deploy(model: Path, libs: tuple[Path, ...], name: str | None, settings: tuple[str, ...],
           inputs_file: Path | None, cloud: str | None, inventory: Path | None,
           dry_run: bool, isolation: str | None, address_range: str | None, inputs: tuple[str, ...], intended_state: str | None,
           form_answers: Path | None, db_url: str | None, as_json: bool) -> None:
    """Deploy MODEL (a MuranoPL object model file or package; a TOSCA service
    template or CSAR, or a CSAR's NAME[==VERSION] in the catalog store; an
    assembly descriptor, or its assembly::NAME::VERSION in the -l folders or
    the catalog store) into an environment.

    Redeploying a changed model applies the difference. Exit status: 0 when the
    deployment succeeded, 1 when it failed, 2 when it was refused before
    anything ran.
    """
    if not dry_run and (isolation or address_range):
        from laguna.cloud.local.settings import choose_settings
        try:
            choose_settings(current_workdir().cloud_dir, isolation, address_range)
        except IsolationError as error:
            fail(Rejected(CLOUD_ERROR, str(error)), as_json)
    # the forms only when asked for: without --form a package deploys its
    # default model, at a terminal as in a script (README's first command)
    if form_answers is not None:
        from laguna.cli.formanswers import model_from_forms
        asked = str(form_answers) == "-"
        if asked and (as_json or not sys.stdin.isatty()):
            fail(Rejected(MODEL_INVALID, "--form - asks the forms' fields on a terminal: "
                                         "give an answers file instead"), as_json)
        try:
            package = model
            model = model_from_forms(package, None if asked else form_answers,
                                     current_workdir().state_dir / "forms",
                                     form_choices(cloud, inventory), libs)
        except Rejected as error:
            fail(error, as_json)
        libs = (*libs, package)
    with catalog_sources(db_url) as stores:
        store = stores[0] if stores else None
        if not model.exists() and str(model).startswith("assembly::"):
            model = descriptor_file(str(model), name, libs, store, as_json)
        elif not model.exists() and store is not None:
            found = csar_folder(str(model), name, store, as_json)
            if found is not None:
                # the environment is the package's name unless --name or the
                # template's template_name says otherwise
                model, default = found
                name = name or _template_name(model) or default
        service = make_service()
        given = key_values(settings, "--set")
        values = {**given, **key_values(inputs, "--input")}
        if intended_state is not None:
            values["laguna.state"] = intended_state
        options = PrepareOptions(libs=libs, settings=values, set_keys=frozenset(given),
                                 name=name, inputs=inputs_file,
                                 cloud=cloud, inventory=inventory, catalog=store)
        if as_json:
            result = service.deploy(model, options, dry_run=dry_run)
        else:
            title = f"{'dry run of' if dry_run else 'deploying'} {name or model}"
            with progress_view(stdout_console(), title) as view:
                result = service.deploy(model, options, dry_run=dry_run, sink=view)
    emit_result(result, as_json)


def form_choices(cloud: str | None, inventory: Path | None) -> CloudChoices:
    """What the forms' cloud fields offer: the offer of the cloud ``--cloud``
    names (the local one without it); Rejected when its driver cannot open."""
    from laguna.errors import LagunaError
    from laguna.forms import CloudChoices
    from laguna.hosts.choice import CloudRequest
    from laguna.hosts.factory import cloud_offer
    try:
        offer = cloud_offer(current_workdir().cloud_dir, None,
                            CloudRequest.of(cloud, inventory))
    except LagunaError as error:
        raise Rejected(CLOUD_ERROR, str(error)) from None
    return CloudChoices(offer.flavors, offer.images, offer.keypairs, offer.zones,
                        offer.networks)


def _template_name(folder: Path) -> str | None:
    from laguna.frontends.tosca.csar import template_name
    return template_name(folder)


def csar_folder(reference: str, name: str | None, store: PackageSource,
                as_json: bool) -> tuple[Path, str] | None:
    """The folder of the catalog's CSAR ``reference`` names (``NAME``, ``NAME==1.2``,
    ``NAME>=1.0,<2.0``), unpacked into the working directory's cache; None when
    the catalog has no CSAR of that name (the deploy then says the path does not
    exist)."""
    from laguna.frontends.tosca.csar import (
        CatalogCsarError, CatalogImports, deployable, split_reference,
    )
    catalog = CatalogImports.of_workdir(current_workdir().state_dir, store)
    if catalog.store is None or not catalog.store.tosca_packages(split_reference(reference)[0]):
        return None
    try:
        package, version, folder = catalog.folder(reference)
        if not deployable(folder):
            raise CatalogCsarError(f"TOSCA package {package} {version} has no node "
                                   "templates to deploy (a CSAR of types: import it "
                                   f"with catalog:{package})")
        return folder, package
    except CatalogCsarError as error:
        emit_result(Result(name=name or reference, language="tosca", status=REJECTED,
                           state=None, error=ErrorInfo("csar_invalid", error.message)),
                    as_json)
    return None


def descriptor_file(descriptor: str, name: str | None, libs: tuple[Path, ...],
                    store: PackageSource | None, as_json: bool) -> Path:
    """The file of ``descriptor`` (a name): in the -l folders, else in the catalog
    store (unpacked into the working directory's cache)."""
    from laguna.frontends.assembly.errors import DescriptorError
    from laguna.frontends.assembly.sources import PackageCache, layered_catalog
    cache = PackageCache.of_workdir(current_workdir().state_dir)
    try:
        return layered_catalog(cache, libs, store=store).path_of(descriptor)
    except DescriptorError as error:
        emit_result(Result(name=name or descriptor, language="assembly", status=REJECTED,
                           state=None, error=ErrorInfo(error.kind, error.message, {
                               "problems": [p.to_json() for p in error.problems]})), as_json)
