"""``laguna validate``: check a blueprint without deploying it."""

from __future__ import annotations

from pathlib import Path

import click

from laguna.cli.shared import workdir_option
from laguna.cli.sources import catalog_sources, db_url_option
from laguna.cli.workdirs import (
    Wiring, current_workdir, default_wiring, key_values, print_json,
)
from laguna.deploy.errors import MODEL_INVALID, Rejected, problems_of
from laguna.deploy.frontend import PrepareOptions, Summarizer
from laguna.source import render


@click.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("-l", "--lib", "libs", multiple=True, type=click.Path(path_type=Path),
              help="A folder of packages, or a package (folder or zip), the blueprint "
                   "uses; repeatable (as for deploy).")
@click.option("--inputs", "inputs", type=click.Path(path_type=Path), metavar="FILE",
              help="A YAML map of the blueprint's input values.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A value for the blueprint's inputs, as for deploy; an unknown KEY "
                   "is refused, naming the known ones; repeatable.")
@db_url_option
@workdir_option
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object on stdout and nothing else.")
def validate(path: Path, libs: tuple[Path, ...], inputs: Path | None, settings: tuple[str, ...],
             db_url: str | None, as_json: bool) -> None:
    """Check PATH (a blueprint in any language laguna reads) and report every problem,
    or a summary of what it would deploy (its parts with counts, its inputs; --json:
    the blueprint's model). Exit status: 0 valid, 2 not."""
    wiring = click.get_current_context().find_object(Wiring) or default_wiring()
    frontend = wiring.frontends.recognise(path) if path.exists() else None
    try:
        if not path.exists():
            raise Rejected(MODEL_INVALID, f"{path} does not exist")
        if frontend is None:
            raise Rejected(MODEL_INVALID, f"no blueprint language recognises {path}")
        with catalog_sources(db_url) as stores:
            # every check a deploy makes before anything runs, against this working
            # directory (an assembly's existing instances) but not an environment's
            # stored packages: a blueprint validated here stands on its own
            options = PrepareOptions(libs=libs, settings=key_values(settings, "--set"),
                                     inputs=inputs, catalog=stores[0] if stores else None,
                                     workdir=current_workdir().root, complete=True)
            blueprint = frontend.prepare(path, options)
    except Rejected as rejected:
        language = frontend.language if frontend is not None else None
        problems = problems_of(rejected)
        if as_json:
            print_json({"status": "rejected", "language": language, "summary": None,
                        "error": {"kind": rejected.kind, "message": rejected.message,
                                  **rejected.details},
                        "problems": [p.to_json() for p in problems]})
        else:
            for problem in problems:
                click.echo(render(problem), err=True)
            if rejected.details.get("problems"):
                click.echo(f"{len(problems)} problem(s)", err=True)
        raise SystemExit(2) from None
    summary = dict(blueprint.model)
    if as_json:
        print_json({"status": "ok", "language": blueprint.language, "name": blueprint.name,
                    "summary": summary, "error": None, "problems": []})
    else:
        click.echo(f"{path}: a valid {blueprint.language} blueprint"
                   + (f" ({blueprint.name})" if blueprint.name else ""))
        lines = frontend.summarize(blueprint) if isinstance(frontend, Summarizer) else ()
        for label, text in lines:
            click.echo(f"{label}: {text}")
    raise SystemExit(0)
