"""Dry-run benchmark: the time of `laguna deploy MODEL --dry-run` of one application.

    python3 benchmarks/bench_dryrun.py [--runs 5]                      # largest example
    python3 benchmarks/bench_dryrun.py --apps DIR [--runs 5]           # largest murano-apps package
    python3 benchmarks/bench_dryrun.py --model FILE [-l LIB ...] [--runs 5]

Without ``--apps`` or ``--model`` the model is the largest one of examples/
(the most objects), with examples/ as ``-l``. With ``--apps DIR`` (a checkout
of openstack/murano-apps) the packages that are not Windows-only are ranked
by class count, then class-file lines; the largest whose dry run succeeds is
timed (the ones skipped are named with their error), from a minimal object
model generated from its property contracts: every In property without a
Default whose contract says notNull() gets a value, class() and template()
properties become objects (instances are LinuxMuranoInstance with a floating
IP), and the packages it requires are given as ``-l`` (an unversioned
requirement takes the 0.x versions, as the original engine read it).

Prints, in seconds:

- ``cli cold``: one `laguna deploy --dry-run --json` in a new interpreter
  (imports, class loading, YAQL parsing and compiling, the run), next to the
  interpreter's start with laguna's CLI imported (`laguna --version`);
- ``first in-process``: the first dry run through the CLI's own service
  (`Service` with `default_wiring()`) in this process: class files parsed
  and expressions compiled;
- ``warm``: the median (min, max) of ``--runs`` more dry runs in the same
  process, the parse and compile caches full.

It asserts only that each run succeeds; compare runs on the same machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t
import uuid
from pathlib import Path

import yaml

from laguna import process
from laguna.cli.workdirs import default_wiring
from laguna.deploy.frontend import PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir

HERE = Path(__file__).parent
EXAMPLES = HERE.parent / "examples"
CORELIB_META = HERE.parent / "src" / "laguna" / "corelib" / "meta"
CLI = [sys.executable, "-c", "from laguna.cli.main import main; main()"]
INSTANCE = "io.murano.resources.LinuxMuranoInstance"
INSTANCES = {"io.murano.resources.Instance", "io.murano.resources.LinuxInstance", INSTANCE}
# abstract classes of the core library -> the concrete class a form would pick
CONCRETE = {"io.murano.applications.ServerGroup": "io.murano.applications.ServerReplicationGroup",
            "io.murano.applications.ReplicaProvider":
                "io.murano.applications.TemplateServerProvider"}


# -- reading murano-apps --------------------------------------------------------------
class _Loader(yaml.SafeLoader):
    """Class files with their tags (`!yaql` ...) read as plain values."""


def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> t.Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(t.cast(yaml.MappingNode, node))


_Loader.add_multi_constructor("!", _untagged)


class ClassDoc:
    """One class of a class file: its full name, parents and properties."""

    def __init__(self, doc: dict[str, t.Any], namespaces: dict[str, str]) -> None:
        self.namespaces = namespaces
        self.name = self.full(doc["Name"])
        extends = doc.get("Extends") or []
        self.parents = [self.full(e) for e in (extends if isinstance(extends, list)
                                               else [extends])]
        self.properties: dict[str, dict[str, t.Any]] = {
            k: v or {} for k, v in (doc.get("Properties") or {}).items()}

    def full(self, name: t.Any) -> str:
        text = str(name)
        if ":" in text:
            prefix, short = text.split(":", 1)
            return f"{self.namespaces.get(prefix, prefix)}.{short}" if prefix else short
        if "." in text or "=" not in self.namespaces:
            return text
        return f"{self.namespaces['=']}.{text}"


def read_classes(path: Path) -> list[ClassDoc]:
    found: list[ClassDoc] = []
    namespaces: dict[str, str] = {}
    for doc in yaml.load_all(path.read_text(), Loader=_Loader):
        if isinstance(doc, dict):
            namespaces = doc.get("Namespaces") or namespaces
            if "Name" in doc:
                found.append(ClassDoc(doc, namespaces))
    return found


class AppPackage:
    def __init__(self, manifest: Path) -> None:
        self.folder = manifest.parent
        self.manifest = yaml.safe_load(manifest.read_text())
        self.name: str = self.manifest["FullName"]
        self.requires: dict[str, t.Any] = dict(self.manifest.get("Require") or {})
        self.files = [self.folder / "Classes" / f
                      for f in (self.manifest.get("Classes") or {}).values()]
        self.files = [f for f in self.files if f.is_file()]
        self.lines = sum(len(f.read_text().splitlines()) for f in self.files)
        self.classes = {c.name: c for f in self.files for c in read_classes(f)}
        ui = self.folder / "UI" / "ui.yaml"
        app = yaml.load(ui.read_text(), Loader=_Loader).get("Application") \
            if ui.is_file() else None
        header = app.get("?") if isinstance(app, dict) else None
        self.app_class: str = (header or {}).get("type") or self.name

    @property
    def windows_only(self) -> bool:
        text = "".join(f.read_text() for f in self.files)
        return ("Windows" in (self.manifest.get("Tags") or [])
                or ("WindowsInstance" in text and "LinuxMuranoInstance" not in text))

    @property
    def major(self) -> int:
        return int(str(self.manifest.get("Version") or "0").split(".")[0])


def required(package: AppPackage, by_name: dict[str, list[AppPackage]]) -> list[AppPackage]:
    """The packages ``package`` requires, transitively; an unversioned
    requirement takes the 0.x versions (the original engine's reading)."""
    found: list[AppPackage] = []
    todo, seen = list(package.requires.items()), set()
    while todo:
        name, spec = todo.pop(0)
        if name in seen or name.startswith("io.murano"):
            continue
        seen.add(name)
        for candidate in by_name.get(name, []):
            if spec or candidate.major == 0:
                found.append(candidate)
                todo += list(candidate.requires.items())
    return found


class ModelMaker:
    """A minimal object model of an application from its property contracts."""

    def __init__(self, packages: list[AppPackage]) -> None:
        self.classes: dict[str, ClassDoc] = {}
        for path in sorted(CORELIB_META.glob("*/Classes/**/*.yaml")):
            self.classes.update((c.name, c) for c in read_classes(path))
        for package in packages:
            self.classes.update(package.classes)
        self.ids = (uuid.UUID(int=(0xbe7c << 112) + i).hex for i in itertools.count(1))

    def ancestors(self, name: str) -> list[str]:
        found, todo = [], [name]
        while todo:
            current = todo.pop(0)
            if current not in found:
                found.append(current)
                cls = self.classes.get(current)
                todo += cls.parents if cls else []
        return found

    def concrete(self, name: str) -> str:
        if name in INSTANCES:
            return INSTANCE
        if name in CONCRETE or name in self.classes:
            return CONCRETE.get(name, name)
        return next((n for n in self.classes if name in self.ancestors(n)), name)

    def value(self, contract: t.Any, owner: ClassDoc, prop: str, depth: int) -> t.Any:
        if isinstance(contract, list):
            item = self.value(contract[0], owner, prop, depth) if contract else None
            return [] if item is None else [item]
        if isinstance(contract, dict):
            return {}
        text = str(contract)
        typed = re.search(r"\$\.(?:class|template)\(\s*([\w.:]+)", text)
        if typed:
            return self.object(owner.full(typed.group(1)), depth + 1)
        if "$.int()" in text:
            return 8080 if "port" in prop.lower() else 1
        if "$.bool()" in text:
            return False
        if "$.string()" in text:
            return "8080" if "port" in prop.lower() else f"{prop.lower()[:12]}x1"
        return None

    def object(self, type_name: str, depth: int = 0) -> dict[str, t.Any]:
        cls = self.concrete(type_name)
        obj: dict[str, t.Any] = {"?": {"id": next(self.ids), "type": cls}}
        if INSTANCES & set(self.ancestors(cls)) or cls in INSTANCES:
            obj.update(name=f"host{obj['?']['id'][-4:]}", image="ubuntu", flavor="m1.small",
                       assignFloatingIp=True)
        if depth > 4:
            return obj
        for ancestor in reversed(self.ancestors(cls)):
            doc = self.classes.get(ancestor)
            for name, spec in (doc.properties.items() if doc else ()):
                if spec.get("Usage", "In") not in ("In", "InOut") or "Default" in spec \
                        or name in obj:
                    continue
                text = json.dumps(spec.get("Contract"))
                wanted = "notNull()" in text or re.search(
                    r"(class|template)\(\s*(res:|io\.murano\.resources\.)\w*Instance\b", text) \
                    or (not ancestor.startswith("io.murano")
                        and re.fullmatch(r'"\$\.(string|int|bool)\(\)"', text))
                if wanted and doc is not None:
                    value = self.value(spec.get("Contract"), doc, name, depth)
                    if value is not None:
                        obj[name] = value
        obj.setdefault("name", cls.rsplit(".", 1)[-1].lower())
        return obj


# -- what to time -----------------------------------------------------------------------
class Subject(t.NamedTuple):
    title: str
    model: Path
    libs: tuple[Path, ...]


def largest_example() -> Subject:
    models = [p for p in EXAMPLES.glob("*/*.yaml") if p.name != "manifest.yaml"]
    model = max(models, key=lambda p: (p.read_text().count("?:"), p.stat().st_size))
    return Subject(f"example {model.relative_to(EXAMPLES.parent)} "
                   f"({model.read_text().count('?:')} objects)", model, (EXAMPLES,))


def dry_run(service: Service, subject: Subject) -> t.Any:
    return service.deploy(subject.model, PrepareOptions(libs=subject.libs), dry_run=True)


def largest_app(apps: Path, scratch: Path, service: Service) -> tuple[Subject, float, int]:
    """The largest package whose dry run succeeds, the time of that (its first)
    run, and how many larger ones were tried before."""
    packages = [AppPackage(m) for m in sorted(apps.glob("**/manifest.yaml"))
                if "Resources" not in m.parts]
    by_name: dict[str, list[AppPackage]] = {}
    for package in packages:
        by_name.setdefault(package.name, []).append(package)
    ranked = sorted((p for p in packages if not p.windows_only),
                    key=lambda p: (len(p.classes), p.lines), reverse=True)
    skipped = 0
    for package in ranked:
        if package.manifest.get("Type") == "Library":
            continue
        deps = required(package, by_name)
        model = scratch / f"{package.name}.yaml"
        model.write_text(yaml.safe_dump([ModelMaker([*deps, package]).object(
            package.app_class)], sort_keys=False))
        subject = Subject(f"murano-apps {package.folder.relative_to(apps)} ({package.name}: "
                          f"{len(package.classes)} classes, {package.lines} lines)",
                          model, (package.folder, *(d.folder for d in deps)))
        started = time.perf_counter()
        result = dry_run(service, subject)
        if result.status == "ok":
            return subject, time.perf_counter() - started, skipped
        skipped += 1
        error = result.error
        print(f"skipped {package.folder.relative_to(apps)} ({len(package.classes)} classes): "
              f"{error.kind if error else result.status}: "
              f"{(error.message if error else '')[:100]}")
    raise SystemExit("no package of the checkout has a dry run that succeeds")


# -- timing -------------------------------------------------------------------------------
def cli_seconds(args: list[str]) -> tuple[float, str]:
    """Wall time of one `laguna ARGS` in a new interpreter, and its stdout."""
    with tempfile.TemporaryDirectory() as workdir:
        started = time.perf_counter()
        done = subprocess.run([*CLI, "--workdir", workdir, *args],
                              capture_output=True, text=True, check=False)
        return time.perf_counter() - started, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apps", type=Path, help="a checkout of openstack/murano-apps")
    parser.add_argument("--model", type=Path, help="an object model to time")
    parser.add_argument("-l", "--lib", type=Path, action="append", default=[],
                        help="packages the model uses (with --model)")
    parser.add_argument("--runs", type=int, default=5, help="warm runs (default 5)")
    args = parser.parse_args()
    process.prepare()
    wiring = default_wiring()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        service = Service(Workdir(scratch / "work"), wiring.frontends,
                          resources=wiring.resources, clock=wiring.clock)
        skipped = 0
        if args.apps is not None:
            subject, first, skipped = largest_app(args.apps, scratch, service)
        else:
            subject = (Subject(f"model {args.model}", args.model, tuple(args.lib))
                       if args.model is not None else largest_example())
            started = time.perf_counter()
            first_result = dry_run(service, subject)
            first = time.perf_counter() - started
            assert first_result.status == "ok", first_result.error
        libs = [part for lib in subject.libs for part in ("-l", str(lib))]
        cold, output = cli_seconds(["deploy", str(subject.model), *libs, "--dry-run", "--json"])
        status = json.loads(output)["status"] if output.strip() else "no output"
        assert status == "ok", f"the CLI's dry run: {status}"
        start, _ = cli_seconds(["--version"])
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            result = dry_run(service, subject)
            times.append(time.perf_counter() - started)
            assert result.status == "ok", result.error
    plan = result.plan or []
    print(f"{subject.title}")
    print(f"  plan: {sum(e['kind'] == 'stack' for e in plan)} stack pushes, "
          f"{sum(e['kind'] == 'agent' for e in plan)} agent plans")
    print(f"  cli cold          {cold:8.3f} s   (interpreter + CLI import alone: {start:.3f} s)")
    note = f"   (after {skipped} larger packages tried: core classes warm)" if skipped else ""
    print(f"  first in-process  {first:8.3f} s{note}")
    print(f"  warm              {statistics.median(times):8.3f} s   median of {len(times)} "
          f"(min {min(times):.3f}, max {max(times):.3f})")


if __name__ == "__main__":
    main()
