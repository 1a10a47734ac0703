"""Finding and reading the files of a TOSCA blueprint: the entry of a CSAR (a
folder or a zip), and every file it imports (relative, nested, prefixed).
"""

from __future__ import annotations

from laguna.errors import LagunaError

import dataclasses
import tempfile
import urllib.parse
import zipfile
from pathlib import Path

import yaml

from laguna.frontends.marks import TOSCA_META
from laguna.packages.archive import extract_archive
from laguna.frontends.tosca.csar import IMPORT_SCHEME, CatalogCsarError, CatalogImports
from laguna.frontends.tosca.grammar import KEYNAMES
from laguna.frontends.tosca.problems import CSAR_INVALID, INVALID_TEMPLATE, YAML_ERROR, Problems
from laguna.frontends.tosca.remote import FetchError, Fetcher, in_repository, is_url, repository
from laguna.source import Span
from laguna.yamlio import YamlError, YMap, load_all

#: the metadata file of a CSAR
META = TOSCA_META


class CsarError(LagunaError):
    """The CSAR has no usable entry."""

    code = "LAG-E1540"


@dataclasses.dataclass(frozen=True)
class Location:
    """Where a blueprint's files are: ``root`` is the CSAR's root (or the
    template's folder), ``entry`` the service template to read first."""

    root: Path
    entry: Path
    csar: bool
    #: a zip was unpacked into ``root`` (a temporary folder)
    unpacked: bool = False
    #: the blueprint's base name (a deployment's name when the template gives none)
    name: str = ""
    #: its files may only be inside ``root`` (a template given as data: no absolute
    #: paths, no ``..`` out of its folder)
    confined: bool = False

    def holds(self, path: Path) -> bool:
        """Whether the blueprint may read ``path``."""
        return not self.confined or path.resolve().is_relative_to(self.root)


def locate(path: Path) -> Location:
    """The entry of ``path``: a service template, a CSAR folder or a CSAR zip."""
    if path.is_dir():
        return Location(path.resolve(), _entry(path.resolve()), csar=True,
                        name=path.resolve().name)
    if zipfile.is_zipfile(path):
        folder = Path(tempfile.mkdtemp(prefix="laguna-csar-"))
        try:
            # the package archives' bounds: entry count, sizes, no path out of it
            extract_archive(path, folder)
        except LagunaError as exc:
            raise CsarError(str(exc)) from None
        return Location(folder.resolve(), _entry(folder.resolve()), csar=True,
                        unpacked=True, name=path.stem)
    return Location(path.resolve().parent, path.resolve(), csar=False, name=path.stem)


def entry_of(root: Path) -> Path:
    """The entry of the CSAR folder ``root`` (CsarError when it has none)."""
    return _entry(root)


def _entry(root: Path) -> Path:
    meta = root / META
    if meta.is_file():
        fields: dict[str, str] = {}
        for number, line in enumerate(meta.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            key, colon, value = line.partition(":")
            if not colon:
                raise CsarError(f"{META}:{number}: expected 'Name: value', got "
                                f"{line.strip()!r}")
            fields[key.strip()] = value.strip()
        for required in ("TOSCA-Meta-File-Version", "CSAR-Version", "Created-By"):
            if required not in fields:
                raise CsarError(f"{META} has no {required}")
        entry = fields.get("Entry-Definitions")
        if entry is None:
            raise CsarError(f"{META} has no Entry-Definitions")
        if not (root / entry).is_file():
            raise CsarError(f"Entry-Definitions {entry} does not exist")
        return root / entry
    yamls = sorted(p for p in root.iterdir() if p.is_file() and p.suffix in (".yaml", ".yml"))
    if len(yamls) != 1:
        found = ", ".join(p.name for p in yamls) or "none"
        raise CsarError(f"a CSAR without {META} needs exactly one yaml file at its "
                        f"root, found {found}")
    return yamls[0]


@dataclasses.dataclass
class Document:
    """One loaded service template file."""

    path: Path
    #: the name in messages: relative to the blueprint's root
    source: str
    data: YMap
    #: the namespace prefix its types are known by ("" for none)
    prefix: str = ""
    #: the URL it was fetched from (its relative imports are relative to it)
    url: str | None = None


@dataclasses.dataclass
class _Run:
    """One loading of a blueprint's files."""

    location: Location
    problems: Problems
    fetcher: Fetcher
    catalog: CatalogImports | None = None
    documents: list[Document] = dataclasses.field(default_factory=list)
    seen: set[tuple[Path, str]] = dataclasses.field(default_factory=set)


def load(location: Location, problems: Problems, fetcher: Fetcher | None = None,
         catalog: CatalogImports | None = None) -> list[Document]:
    """The entry document, then every document it imports (each once); imports
    from URLs and repositories come through ``fetcher`` (none: refused), and
    ``catalog:NAME`` imports from ``catalog`` (none: refused)."""
    run = _Run(location, problems, fetcher or Fetcher(None), catalog)
    _load(location.entry, "", run, None, None)
    return run.documents


def _name(path: Path, location: Location) -> str:
    try:
        return str(path.relative_to(location.root))
    except ValueError:
        return str(path)


def _load(path: Path, prefix: str, run: _Run, span: Span | None, url: str | None,
          source: str | None = None) -> None:
    key = (path.resolve(), prefix)
    if key in run.seen:
        return
    run.seen.add(key)
    problems = run.problems
    source = source or url or _name(path, run.location)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        problems.add(INVALID_TEMPLATE, f"cannot read {source}: {why}", span, source)
        return
    try:
        loaded = load_all(text, source)
    except YamlError as exc:
        problems.add(YAML_ERROR, exc.message,
                     exc.span, source)
        return
    except yaml.YAMLError as exc:  # pragma: no cover - yamlio wraps PyYAML's errors
        problems.add(YAML_ERROR, str(exc), Span(source, 1, 1), source)
        return
    if len(loaded) != 1 or not isinstance(loaded[0], YMap):
        problems.add(INVALID_TEMPLATE, "a service template is one YAML map",
                     Span(source, 1, 1), source)
        return
    document = Document(path, source, loaded[0], prefix, url)
    run.documents.append(document)
    imports = document.data.get("imports")
    if imports is None:
        return
    if not isinstance(imports, list):
        problems.add(INVALID_TEMPLATE, "imports is a list", _span(document.data, "imports"),
                     source)
        return
    for item in imports:
        _import(item, document, run)


def _import(item: object, document: Document, run: _Run) -> None:
    problems = run.problems
    where = getattr(item, "span", None) or document.data.span
    prefix = document.prefix
    repository_name: object = None
    if isinstance(item, dict) and len(item) == 1 and isinstance(next(iter(item.values())),
                                                                 (dict, str)) \
            and "file" not in item:
        # the 1.0 form: a list of single-key maps, name -> definition
        item = next(iter(item.values()))
    if isinstance(item, str):
        file = item
    elif isinstance(item, dict):
        for key in item:
            if key not in KEYNAMES["import"]:
                problems.add(INVALID_TEMPLATE, f"unknown keyname {key!r} in an import "
                             f"(expected one of {', '.join(sorted(KEYNAMES['import']))})",
                             _span(item, key), document.source)
        given_file = item.get("file")
        if not isinstance(given_file, str):
            problems.add(INVALID_TEMPLATE, "an import needs a file", where, document.source)
            return
        file = given_file
        repository_name = item.get("repository")
        given = item.get("namespace_prefix")
        if given is not None:
            prefix = f"{prefix}{given}:" if prefix else f"{given}:"
    else:
        problems.add(INVALID_TEMPLATE, "an import is a file name or a map with a file",
                     where, document.source)
        return
    if file.startswith(IMPORT_SCHEME) and repository_name is None:
        _import_package(file, prefix, where, document, run)
        return
    url: str | None = None
    credential: object = None
    if repository_name is not None:
        found = repository(repository_name, document.data.get("repositories"),
                           run.documents[0].data.get("repositories"))
        if found is None:
            problems.add(INVALID_TEMPLATE, f"import {file}: repository {repository_name!r} "
                         "is not declared in repositories", where, document.source)
            return
        url, credential = in_repository(found[0], file), found[1]
    elif is_url(file):
        url = file
    elif document.url is not None:
        url = urllib.parse.urljoin(document.url, file)
    if url is not None:
        try:
            fetched = run.fetcher.fetch(url, credential if isinstance(credential, dict)
                                        else None)
        except FetchError as exc:
            problems.add(INVALID_TEMPLATE, f"import {file}: cannot fetch {url}: {exc}", where,
                         document.source)
            return
        _load(fetched, prefix, run, where, url)
        return
    target = (document.path.parent / file) if not file.startswith("/") \
        else run.location.root / file.lstrip("/")
    if not target.is_file() or not run.location.holds(target):
        problems.add(INVALID_TEMPLATE, f"imported file {file} does not exist", where,
                     document.source)
        return
    _load(target, prefix, run, where, None)


def _import_package(file: str, prefix: str, where: Span | None, document: Document,
                    run: _Run) -> None:
    """An import of a catalog package (``catalog:NAME``, with a Murano-style
    version requirement or not): its entry template, with what it imports."""
    if run.catalog is None:
        run.problems.add(INVALID_TEMPLATE, f"import {file}: no catalog to import from here",
                         where, document.source)
        return
    try:
        label, entry = run.catalog.entry(file[len(IMPORT_SCHEME):])
    except CatalogCsarError as exc:
        run.problems.add(INVALID_TEMPLATE, f"import {file}: {exc.message}", where,
                         document.source)
        return
    _load(entry, prefix, run, where, None, source=f"{IMPORT_SCHEME}{label}/"
          f"{entry.name}")


def _span(data: object, key: str) -> Span | None:
    spans = getattr(data, "key_spans", None)
    if spans and key in spans:
        return spans[key]  # type: ignore[no-any-return]
    return getattr(data, "span", None)
