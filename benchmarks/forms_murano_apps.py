"""Murano's dynamic forms over another project's packages: every ui.yaml of a
murano-apps checkout (outside the repo) is read; its required fields are
filled with the first of a few values each accepts (a field whose type is a
class gets a new application of that class, made by that application's own
form, as murano-dashboard's "add a new one"); the object model comes out; and
each step is drawn by the dashboard with those answers typed as text, every
control having a label, and the texts as a browser posts them must make a
model too (docs/DASHBOARD.md); and the model is deployed with ``--dry-run``,
its packages and their dependencies taken from a scratch catalog store into
which every package of the checkout is imported (the core library is
laguna's own). docs/FORMS.md. One command,
printing each file's result, each refusal's reason and the counts::

    python3 benchmarks/forms_murano_apps.py /path/to/murano-apps
"""

from __future__ import annotations

import dataclasses
import html.parser
import json
import os
import sys
import tempfile
import typing as t
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))
from laguna import process  # noqa: E402
from laguna.cli.workdirs import default_wiring  # noqa: E402
from laguna.deploy.frontend import PrepareOptions  # noqa: E402
from laguna.deploy.service import Service  # noqa: E402
from laguna.deploy.workdir import Workdir, open_store  # noqa: E402
from laguna.errors import LagunaError  # noqa: E402
from laguna.forms import AnswersRefused, UiDefinition, fill, read  # noqa: E402
from laguna.forms.definition import FieldDef  # noqa: E402
from laguna.dashboard.applications import Wizard, step_page  # noqa: E402
from laguna.dashboard.wizard import MANAGEMENT_FORM, NAME_FIELD, Draft  # noqa: E402
from laguna.forms import LOCAL_CHOICES  # noqa: E402
from laguna.frontends.muranopl.model import wrap  # noqa: E402
from laguna.packages.package import Package, load_package  # noqa: E402
from laguna.store.packages import import_package  # noqa: E402
from laguna.store.source import StoreSource  # noqa: E402

#: values tried in turn for a field until it accepts one
CANDIDATES: dict[str, list[t.Any]] = {
    "string": ["app1", "abc", "Admin1", "example.com", "10.0.0.1", "a", "user_1", "abcdefgh"],
    "text": ["some text"],
    "password": ["Secret1!"],
    "integer": [1, 2, 3, 5, 10, 80, 1024, 8080],
}
#: how deep applications made for class fields may nest (WordPress -> ZabbixAgent
#: -> ZabbixServer is 2)
MAX_DEPTH = 4
#: LAGUNA_FORMS_DETAILS=1: each refusal's details (the engine's stack) too
DETAILS = os.environ.get("LAGUNA_FORMS_DETAILS") == "1"


@dataclasses.dataclass
class App:
    """A package of the checkout with a ui.yaml."""

    package: Package
    ui_path: Path
    ui: UiDefinition | None = None

    @property
    def app_type(self) -> str:
        return self.package.name


def _answers(choice: dict[str, t.Any], fields: dict[str, FieldDef]) -> dict[str, t.Any]:
    answers = {key: value for key, value in choice.items() if value is not None}
    for key, field in fields.items():
        if field.type == "password" and key in answers:
            answers[f"{key}-clone"] = answers[key]
    return answers


class Filler:
    """Models of the checkout's forms; a class field's application is made by
    the form of the package that provides the class."""

    def __init__(self, root: Path, apps: list[App]) -> None:
        self.root = root
        self.apps = apps

    def provider(self, types: tuple[str, ...]) -> App | None:
        """The app whose package provides one of ``types`` (the class or the
        package of that name)."""
        for name in types:
            for app in self.apps:
                if name == app.package.name or name in app.package.class_names():
                    return app
        return None

    def candidates(self, field: FieldDef, depth: int) -> list[t.Any]:
        if field.type == "boolean" and depth > 0:
            # an application made for another's field has its options ticked:
            # the one that asks for it may need them (WordPress needs Apache's PHP)
            return [True]
        if field.get("required") is False:
            return [None]               # left as the form shows it: its initial value
        if isinstance(field.type, tuple) or "." in field.type:
            types = field.type if isinstance(field.type, tuple) else (field.type,)
            provider = self.provider(types)
            if provider is None or depth >= MAX_DEPTH:
                raise RuntimeError(f"no package of the checkout provides {', '.join(types)}")
            return [self.model_of(provider, depth + 1)]
        # a pre-filled field is left as it is first, as a user would
        initial = [None] if field.get("initial") is not None else []
        return initial + CANDIDATES.get(field.type, [None])

    def model_of(self, app: App, depth: int = 0) -> dict[str, t.Any]:
        """The model the app's forms make of the first values they accept."""
        ui, answers = self.answers_of(app, depth)
        return fill(ui, answers, str(app.package.manifest.name))

    def answers_of(self, app: App, depth: int = 0) -> tuple[UiDefinition, dict[str, t.Any]]:
        """The app's forms and the first values they accept."""
        if app.ui is None:
            app.ui = read(app.ui_path.read_text(), str(app.ui_path.relative_to(self.root)))
        ui = app.ui
        fields = {f"{form.name}.{field.name}": field for form in ui.forms
                  for field in form.fields}
        left = {key: iter(self.candidates(field, depth)) for key, field in fields.items()}
        choice = {key: next(values) for key, values in left.items()}
        for _ in range(100):
            try:
                fill(ui, _answers(choice, fields), str(app.package.manifest.name))
                return ui, _answers(choice, fields)
            except AnswersRefused as refused:
                for problem in refused.problems:
                    try:
                        choice[problem.where] = next(left[problem.where])
                    except StopIteration:
                        raise RuntimeError(f"no candidate value fits {problem.where}: "
                                           f"{problem.message}") from None
        raise RuntimeError("no answers were accepted in 100 rounds")


class _Controls(html.parser.HTMLParser):
    """The ids of a page's controls and of the controls its labels name."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[str] = []
        self.labelled: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("input", "select", "textarea") and values.get("type") != "hidden" \
                and values.get("id"):
            self.controls.append(str(values["id"]))
        if tag == "label" and values.get("for"):
            self.labelled.add(str(values["for"]))


def drawn(ui: UiDefinition, answers: dict[str, t.Any]) -> dict[str, t.Any]:
    """Every step drawn by the dashboard with ``answers`` typed as text (each
    control labelled), then the model those texts make. A class field's new
    application is typed as an application of the environment's (an id)."""
    wizard = Wizard({"id": "0" * 32, "name": "App", "fully_qualified_name": "App"}, ui,
                    LOCAL_CHOICES)
    typed: dict[str, dict[str, str]] = {}
    for key, value in answers.items():
        form, _, name = key.partition(".")
        typed.setdefault(form, {})[name] = "0123456789abcdef0123456789abcdef" \
            if isinstance(value, dict) else str(value).lower() if isinstance(value, bool) \
            else str(value)
    typed[MANAGEMENT_FORM] = {NAME_FIELD: "App"}
    environment = {"id": "1" * 32, "name": "env", "services": []}
    for step, form in enumerate(wizard.steps):
        shown = step_page(wizard, Draft("0" * 32, step, typed), [], environment, None, "key")
        if shown.status_code != 200:
            raise RuntimeError(f"step {form} is drawn with problems")
        controls = _Controls()
        controls.feed(bytes(shown.body).decode())
        unlabelled = [c for c in controls.controls if c not in controls.labelled]
        if unlabelled:
            raise RuntimeError(f"step {form}: controls without a label: {unlabelled}")
    return wizard.evaluation().fill(typed)


def read_packages(root: Path) -> tuple[list[Package], list[App], list[str]]:
    """Every package of the checkout (a folder with manifest.yaml, not one of a
    package's Resources), the ones with a ui.yaml, and those that do not load."""
    packages: list[Package] = []
    apps: list[App] = []
    broken: list[str] = []
    for manifest in sorted(root.rglob("manifest.yaml")):
        if "Resources" in manifest.parts:
            continue
        try:
            package = load_package(manifest.parent)
        except LagunaError as error:
            broken.append(f"{manifest.parent.relative_to(root)}: {error}")
            continue
        packages.append(package)
        ui = manifest.parent / "UI" / "ui.yaml"
        if ui.is_file():
            apps.append(App(package, ui))
    return packages, apps, broken


def main() -> int:
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        print("usage: python3 benchmarks/forms_murano_apps.py MURANO_APPS_CHECKOUT",
              file=sys.stderr)
        return 2
    root = Path(sys.argv[1]).resolve()
    files = sorted(p for p in root.rglob("ui.yaml") if "UI" in p.parts)
    packages, apps, broken = read_packages(root)
    for line in broken:
        print(f"NOT LOADED {line}")
    filler = Filler(root, apps)
    process.prepare()
    wiring = default_wiring()
    made = shown = accepted = 0
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Workdir(Path(scratch) / "work")
        workdir.state_dir.mkdir(parents=True)
        database = open_store(workdir.url)
        with database.session() as session:
            for package in packages:
                import_package(session, package, is_public=True)
        catalog = StoreSource(database)
        service = Service(workdir, wiring.frontends, resources=wiring.resources,
                          clock=wiring.clock)
        for app in apps:
            where = app.ui_path.relative_to(root)
            try:
                ui, answers = filler.answers_of(app)
                model = fill(ui, answers, str(app.package.manifest.name))
            except (LagunaError, RuntimeError) as error:
                print(f"FAIL {where}: {error}")
                continue
            made += 1
            try:
                drawn(ui, answers)
            except (LagunaError, RuntimeError) as error:
                print(f"NOT DRAWN {where}: {error}")
            else:
                shown += 1
            # the model names its package's version, as the dashboard adds an
            # application of the version it showed (v0 and v1 of a package)
            header = model["?"]
            if "/" not in header["type"]:
                header["type"] = (f"{header['type']}/{app.package.version}"
                                  f"@{app.package.name}")
            # as the API's engine deploys a session: the environment holding
            # the application, its packages from the catalog
            name = f"app-{made}"
            result = service.deploy_data(name, "muranopl", {"Objects": wrap([model], name)},
                                         PrepareOptions(catalog=catalog), dry_run=True)
            if result.status == "ok":
                accepted += 1
                print(f"ok   {where}: {model['?']['type']}")
            else:
                error = result.error
                print(f"REFUSED {where}: {error.kind if error else result.status}: "
                      f"{error.message if error else ''}")
                if DETAILS and error is not None:
                    print(json.dumps(error.details, indent=1, default=str)[:6000])
                    for report in result.reports:
                        if report.level in ("error", "warning") or "Unable" in report.text:
                            print(f"  {report.level}: {report.text}")
        database.dispose()
    print(f"{len(files)} ui.yaml files: {len(apps)} of packages that load, "
          f"{made} produce a model, {shown} drawn by the dashboard, "
          f"{accepted} accepted by a dry run")
    return 0 if accepted == len(files) else 1


if __name__ == "__main__":
    sys.exit(main())
