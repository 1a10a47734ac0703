"""io.murano.system.Resources: the files under a package's ``Resources/`` folder.

``string(name, owner, binary)`` reads a file as text, or as ``bytes`` when
``binary`` is true (bytes stay bytes all the way into execution plans, where
the original engine under Python 3 handed MuranoPL a list of integers);
``yaml`` and ``json`` parse one, under the bounds of class files (nesting,
aliases expanded: :mod:`laguna.yamlio`), since a package's resources are not
parsed when it is uploaded (they may hold any text) and a 1 KB alias bomb
would expand to gigabytes. The package is the one of the class that
calls, or of ``owner`` (a type) when given: ``sys:Resources.string('x.sh')``
and ``new(sys:Resources).string('x.sh')`` read the caller's own package.
"""

from __future__ import annotations

import functools
import posixpath
import threading
import typing as t
import weakref

from laguna.corelib.binding import caller_class
from laguna.corelib.declare import REQUIRED, native
from laguna.lang import dispatch
from laguna.lang.errors import DslError
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MethodUsage, MuranoClass
from laguna.yamlio import YamlError, load_data, load_json

RESOURCES_CLASS = "io.murano.system.Resources"
RESOURCES_FOLDER = "Resources"


class ResourceNotFound(DslError):
    """A package has no such file under Resources/."""

    code = "LAG-E0521"
    murano_name = "io.murano.system.ResourceNotFound"


class InvalidResource(DslError):
    """A resource read as YAML or JSON is not valid, or is larger or deeper
    than the loader allows."""

    code = "LAG-E0524"
    murano_name = "io.murano.system.InvalidResource"


class PackageFiles:
    """Reads the files of one package version (what a Resources call resolves to)."""

    def __init__(self, reader: t.Callable[[str], bytes], package_name: str) -> None:
        self._read = reader
        self.package_name = package_name

    def read(self, name: str) -> bytes:
        path = posixpath.normpath(posixpath.join(RESOURCES_FOLDER, name))
        if not path.startswith(RESOURCES_FOLDER + "/"):
            raise ResourceNotFound(f"{name!r} is outside the Resources folder")
        try:
            return self._read(path)
        except Exception as exc:
            raise ResourceNotFound(
                f"package {self.package_name} has no resource {name!r}") from exc

    def string(self, name: str, binary: bool = False) -> str | bytes:
        data = self.read(name)
        if binary:
            return data
        # universal newlines, as the original opened text resources
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")

    def yaml(self, name: str) -> t.Any:
        """The resource read as YAML, parsed once per text: the value is shared,
        so it must not be changed (MuranoPL gets it frozen, i.e. copied)."""
        text = self.string(name)
        assert isinstance(text, str)
        return _parsed_yaml(text, self._where(name))

    def json(self, name: str) -> t.Any:
        text = self.string(name)
        assert isinstance(text, str)
        try:
            return load_json(text, self._where(name))
        except YamlError as exc:
            raise InvalidResource(str(exc)) from None
        except ValueError as exc:
            raise InvalidResource(f"{self._where(name)}: invalid JSON: {exc}") from None

    def _where(self, name: str) -> str:
        return f"{self.package_name}/{posixpath.normpath(posixpath.join(RESOURCES_FOLDER, name))}"


@functools.lru_cache(maxsize=256)
def _parsed_yaml(text: str, where: str) -> t.Any:
    # every instance of an application reads the same templates; every
    # scalar the YAML 1.1 rules would make a date stays a string (templates
    # are data to bind), as the original's resource loader did
    try:
        return load_data(text, where, dates=False)
    except YamlError as exc:
        raise InvalidResource(str(exc)) from None


#: the files read from each loaded package, by path: a package is read-only
#: for as long as it is loaded, and every instance of an application reads the
#: same scripts and templates (from disk, for a package folder)
_READ: weakref.WeakKeyDictionary[t.Any, dict[str, bytes]] = weakref.WeakKeyDictionary()
_READ_LOCK = threading.Lock()


def _remembering(source: t.Any) -> t.Callable[[str], bytes]:
    with _READ_LOCK:
        read = _READ.setdefault(source, {})

    def remembered(path: str) -> bytes:
        data = read.get(path)
        if data is None:
            data = read[path] = source.read(path)
        return data
    return remembered


def package_files(executor: t.Any, cls: MuranoClass) -> PackageFiles:
    """The files of the package ``cls`` comes from."""
    holder = executor.classes.package_of(cls.package)
    source = getattr(holder, "source", None)
    if source is None:
        raise ResourceNotFound(f"package {cls.package.name} has no files")
    return PackageFiles(_remembering(source), cls.package.name)


def _files(executor: t.Any, frame: t.Any, owner: t.Any) -> PackageFiles:
    if owner is not None:
        cls = dispatch.to_type(_FrameScope(frame.caller or frame), owner)
    else:
        cls = caller_class(frame)
    return package_files(executor, cls)


class _FrameScope:
    def __init__(self, frame: t.Any) -> None:
        self.frame = frame


def bind_resources(cls: MuranoClass) -> None:
    def string(executor: t.Any, this: t.Any, frame: t.Any, name: str, owner: t.Any = None,
               binary: bool = False) -> t.Any:
        return files_of(executor, this, frame, owner).string(name, bool(binary))

    def yaml_(executor: t.Any, this: t.Any, frame: t.Any, name: str,
              owner: t.Any = None) -> t.Any:
        return files_of(executor, this, frame, owner).yaml(name)

    def json_(executor: t.Any, this: t.Any, frame: t.Any, name: str,
              owner: t.Any = None) -> t.Any:
        return files_of(executor, this, frame, owner).json(name)

    def init(executor: t.Any, this: t.Any, frame: t.Any) -> None:
        # an object reads the package of the class that made it (Agent.call too)
        this.extension = caller_class(frame)

    def files_of(executor: t.Any, this: t.Any, frame: t.Any, owner: t.Any) -> PackageFiles:
        if owner is None and isinstance(this, MuranoObject) and isinstance(
                this.extension, MuranoClass):
            return package_files(executor, this.extension)
        return _files(executor, frame, owner)

    native(cls, ".init", init, [])
    args = [("name", REQUIRED), ("owner", None)]
    native(cls, "string", string, [*args, ("binary", False)], MethodUsage.Static)
    native(cls, "yaml", yaml_, args, MethodUsage.Static)
    native(cls, "json", json_, args, MethodUsage.Static)
