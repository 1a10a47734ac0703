"""Where an intent's descriptors and resource packages come from, and what an
environment keeps of them.

An intent's :class:`~.catalog.Catalog` is layered; for one descriptor name
the first layer that has it wins:

1. the ``-l`` folders given to this command (a local override);
2. the packages the environment keeps: every descriptor package its intents
   used, stored whole with the environment (``StoredPackage``), so later
   intents need neither ``-l`` nor the catalog store, and a package deleted
   from the store or a folder removed changes nothing;
3. the ``-l`` folders of the deploy, while they still exist (names the
   environment never used, for an upgrade);
4. the catalog store's descriptor packages (``laguna package import``),
   listed by the descriptor's own name (``1.10``, not the stored ``1.10.0``).

Archives (kept or stored) are unpacked once into ``DIR/.laguna/descriptors/``,
under a key that names their content: ``kept-SHA256`` for kept packages,
``store-ID`` for store packages (an imported package never changes; deleted
and imported again it has a new id), ``data-SHA256`` for descriptors given as
data. Archives are untrusted: :func:`~laguna.packages.archive.extract_archive`
applies its limits and refuses paths that leave the folder.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import typing as t
from pathlib import Path

from laguna.deploy.context import StoredPackage
from laguna.errors import LagunaError
from laguna.frontends.assembly import errors as e
from laguna.frontends.assembly.catalog import Catalog
from laguna.frontends.assembly.descriptor import Descriptor
from laguna.frontends.assembly.names import split
from laguna.packages.archive import build_archive, extract_archive

#: the cache's folder under the working directory's ``.laguna``
CACHE_FOLDER = "descriptors"
DEFINITIONS = ("Definitions", "lm")


@t.runtime_checkable
class DescriptorStore(t.Protocol):
    """A catalog store that holds descriptor packages (``laguna.store.StoreSource``)."""

    def descriptors(self) -> list[tuple[str, str]]:
        """``(descriptor name, package id)`` of every descriptor package."""
        ...

    def descriptor_archive(self, package_id: str) -> bytes:
        """That package's archive."""
        ...


class PackageCache:
    """Archives unpacked once, each in a folder named by its key."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def of_workdir(cls, state_dir: Path) -> PackageCache:
        """The cache of the working directory whose ``.laguna`` is ``state_dir``."""
        return cls(state_dir / CACHE_FOLDER)

    def unpacked(self, key: str, archive: t.Callable[[], bytes], what: str) -> Path:
        """The folder of ``key``, unpacking ``archive()`` into it the first time."""
        target = self.root / key
        if target.is_dir():
            return target
        self.root.mkdir(parents=True, exist_ok=True)
        # unpacked aside, then renamed: a reader never sees half a package, and two
        # commands unpacking the same key at once both end with a whole one
        scratch = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=self.root))
        try:
            extract_archive(archive(), scratch)
            os.rename(scratch, target)
        except LagunaError as error:
            raise e.fail(e.INVALID_DESCRIPTOR, f"{what}: {error}") from None
        except OSError:
            if not target.is_dir():
                raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return target

    def written(self, key: str, files: t.Mapping[str, bytes]) -> Path:
        """The folder of ``key``, holding ``files`` (relative paths) the first time."""
        buffer = io.BytesIO()
        with tempfile.TemporaryDirectory(prefix="laguna-descriptor-") as staging:
            for name, data in files.items():
                path = Path(staging, name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            build_archive(staging, buffer)
        return self.unpacked(key, buffer.getvalue, key)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def layered_catalog(cache: PackageCache | None, given: t.Iterable[Path] = (),
                    kept: t.Iterable[StoredPackage] = (), remembered: t.Iterable[Path] = (),
                    store: object = None) -> Catalog:
    """The catalog of one intent, its layers in the order of the module's docstring.

    Without a cache (no working directory) only ``-l`` folders are read.
    """
    catalog = Catalog(given)
    if cache is not None:
        for package in kept:
            catalog.add_root(cache.unpacked(f"kept-{digest(package.archive)}",
                                            _constant(package.archive),
                                            f"kept package {package.name} {package.version}"))
    for root in remembered:
        if root.exists():
            catalog.add_root(root)
    if cache is not None and isinstance(store, DescriptorStore):
        for name, package_id in store.descriptors():
            catalog.add_lazy(name, _store_loader(cache, store, name, package_id))
    return catalog


def _constant(archive: bytes) -> t.Callable[[], bytes]:
    return lambda: archive


def _store_loader(cache: PackageCache, store: DescriptorStore, name: str,
                  package_id: str) -> t.Callable[[], Path]:
    def load() -> Path:
        return cache.unpacked(f"store-{package_id}",
                              lambda: store.descriptor_archive(package_id),
                              f"stored package {name}")
    return load


def kept_packages(catalog: Catalog) -> tuple[StoredPackage, ...]:
    """What the environment keeps after an intent: every descriptor it loaded, as a
    package archive (its lmctl package folder; a lone descriptor file with the
    ``Lifecycle`` folder beside it), in name order."""
    try:
        return tuple(_kept(descriptor) for _, descriptor in sorted(catalog.loaded().items()))
    except LagunaError as error:   # a symbolic link in a package folder, say
        raise e.fail(e.INVALID_DESCRIPTOR, f"cannot keep a package: {error}") from None


def _kept(descriptor: Descriptor) -> StoredPackage:
    kind, name, version = split(descriptor.name)
    buffer = io.BytesIO()
    path = descriptor.path
    if path.parent.parts[-2:] == DEFINITIONS:
        build_archive(path.parent.parent.parent, buffer)
    else:
        with tempfile.TemporaryDirectory(prefix="laguna-descriptor-") as staging:
            definitions = Path(staging, *DEFINITIONS)
            definitions.mkdir(parents=True)
            shutil.copyfile(path, definitions / path.name)
            lifecycle = path.parent / "Lifecycle"
            if kind == "resource" and lifecycle.is_dir():
                shutil.copytree(lifecycle, Path(staging, "Lifecycle"), symlinks=True)
            build_archive(staging, buffer)
    return StoredPackage(f"{kind}::{name}", version, buffer.getvalue())
