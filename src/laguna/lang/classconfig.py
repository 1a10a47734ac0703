"""Per-class configuration: where `Usage: Config` properties get their values.

An operator keeps one file per class in a folder (laguna's ``class_configs``
setting, ``LAGUNA_CLASS_CONFIGS``). The file of class ``ns.Name`` from a
package of version 1.2.3 is the first of these that exists::

    ns.Name-1.2.3.json  ns.Name-1.2.3.yaml
    ns.Name-1.2.json    ns.Name-1.2.yaml
    ns.Name-1.json      ns.Name-1.yaml
    ns.Name.json        ns.Name.yaml        (only for packages of major version 0)

This is the original engine's naming. The file holds a mapping of property
names to values. A `Usage: Config` property takes its value from there and
never from the object model; for any other property of that class the value
in the file replaces the declared `Default`.

The language does no I/O: :class:`ClassConfigs` asks a
:class:`ConfigFileSource` for the text of a file by name
(:class:`laguna.configfolder.ConfigFolder` reads a folder; tests may pass
a dict-backed source) and parses it here.
"""

from __future__ import annotations

import os
import threading
import typing as t

from laguna import yamlio
from laguna.lang.errors import DslError

if t.TYPE_CHECKING:
    import semantic_version

#: where a configuration file is, as the source names it in errors
Location = t.Union[str, "os.PathLike[str]"]


class ClassConfigError(DslError):
    """A class configuration file cannot be read or is not a mapping."""

    code = "LAG-E0901"
    murano_name = "ClassConfigError"

    def __init__(self, path: Location, reason: str) -> None:
        super().__init__(f"class configuration file {path}: {reason}")
        self.path = path
        self.reason = reason


class ConfigFile(t.NamedTuple):
    """The text of one configuration file and where it was found."""

    path: Location
    text: str


class ConfigFileSource(t.Protocol):
    """Where class configuration files come from."""

    def read(self, name: str) -> ConfigFile | None:
        """The file called ``name``, None when there is none; raises
        :class:`ClassConfigError` when it exists but cannot be read."""


def config_file_names(class_name: str, version: semantic_version.Version) -> list[str]:
    """The file names tried for a class, most specific first."""
    parts = [str(version.major), str(version.minor), str(version.patch)]
    suffixes = ["-" + ".".join(parts[:count]) for count in (3, 2, 1)]
    if version.major == 0:
        suffixes.append("")
    return [f"{class_name}{suffix}.{ext}" for suffix in suffixes for ext in ("json", "yaml")]


class ClassConfigs:
    """The configured values of classes, each file read once from ``source``."""

    def __init__(self, source: ConfigFileSource) -> None:
        self.source = source
        self._cache: dict[tuple[str, str], dict[str, t.Any]] = {}
        # the same, by the version object a class holds (every property write
        # of a new object asks: its text form and the lock cost more than the
        # rest of the lookup); the entry keeps the version, so its id stays its own
        self._by_version: dict[tuple[str, int],
                               tuple[semantic_version.Version, dict[str, t.Any]]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r})"

    def values(self, class_name: str, version: semantic_version.Version) -> dict[str, t.Any]:
        """The configured values of a class; empty when it has no file."""
        known = self._by_version.get((class_name, id(version)))
        if known is not None and known[0] is version:
            return known[1]
        key = (class_name, str(version))
        with self._lock:
            found = self._cache.get(key)
            if found is None:
                found = self._read(class_name, version)
                self._cache[key] = found
            self._by_version[(class_name, id(version))] = (version, found)
            return found

    def _read(self, class_name: str, version: semantic_version.Version) -> dict[str, t.Any]:
        for name in config_file_names(class_name, version):
            file = self.source.read(name)
            if file is not None:
                return parse_config(file)
        return {}


def parse_config(file: ConfigFile) -> dict[str, t.Any]:
    """The values a configuration file holds (JSON for `.json` names, else YAML)."""
    path, text = file
    # bounded as class files are (nesting, aliases expanded): an alias bomb
    # or 100,000 nested lists in a configuration file is an error of the file
    try:
        if os.fspath(path).endswith(".json"):
            data = yamlio.load_json(text, os.fspath(path)) if text.strip() else None
        else:
            data = yamlio.load_data(text, os.fspath(path))
    except yamlio.YamlError as exc:
        where = f"line {exc.span.line}: " if exc.span is not None else ""
        if exc.code in ("LAG-E0103", "LAG-E0104"):
            raise ClassConfigError(path, f"is refused ({where}{exc.message})") from None
        problem = exc.message.removeprefix("invalid YAML: ")
        raise ClassConfigError(path, f"is not valid YAML ({where}{problem})") from None
    except ValueError as exc:
        raise ClassConfigError(path, f"is not valid JSON ({exc})") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        # the original engine ignored such a file silently; a typo there
        # would leave every value at its Default without a word
        raise ClassConfigError(path, f"must hold a mapping of property names to values, "
                                     f"not {type(data).__name__}")
    return {str(k): v for k, v in data.items()}


__all__ = ["ClassConfigError", "ClassConfigs", "ConfigFile", "ConfigFileSource",
           "config_file_names", "parse_config"]
