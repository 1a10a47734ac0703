"""Zip archives of packages: safe reading, safe extraction, and building.

An archive comes from users, so nothing in it is trusted. Before a single
byte is read every entry is checked: its name must be a relative path that
stays inside the package (no absolute path, drive letter or ``..``), it must
not be a symbolic link, names must be unique, and the number of entries and
the sizes declared in the zip headers must be within :class:`ArchiveLimits`.
While reading, the bytes actually produced are counted against the same
limits, so a header that understates a size cannot get more data through.
"""

from __future__ import annotations

import dataclasses
import io
import os
import posixpath
import re
import stat
import typing as t
import zipfile
import zlib
from pathlib import Path

from laguna.packages import errors as codes
from laguna.packages.errors import ArchiveError

MiB = 1024 * 1024
_CHUNK = 64 * 1024
# Fixed timestamp of every built entry, so that building twice gives the same bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)
# Files and folders that are never part of a built package.
_IGNORED = {"__pycache__", ".git", ".hg", ".svn", ".DS_Store"}


@dataclasses.dataclass(frozen=True)
class ArchiveLimits:
    """How much an archive may hold; exceeding any limit refuses the archive."""

    max_entries: int = 10_000
    max_entry_size: int = 64 * MiB
    max_total_size: int = 256 * MiB


DEFAULT_LIMITS = ArchiveLimits()

ArchiveInput = t.Union[str, os.PathLike[str], bytes, t.BinaryIO]


def safe_entry_name(name: str) -> str:
    """The normalised relative path of an entry, or :class:`ArchiveError` if unsafe."""
    unified = name.replace("\\", "/")
    if unified.startswith("/") or re.match(r"^[A-Za-z]:", unified):
        raise ArchiveError(f"archive entry {name!r} has an absolute path",
                           codes.ARCHIVE_UNSAFE_PATH, name)
    parts = [p for p in unified.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"archive entry {name!r} points outside the package ('..')",
                           codes.ARCHIVE_UNSAFE_PATH, name)
    if not parts:
        raise ArchiveError(f"archive entry {name!r} has an empty name",
                           codes.ARCHIVE_UNSAFE_PATH, name)
    return "/".join(parts)


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    mode = info.external_attr >> 16
    return stat.S_ISLNK(mode)


def _open(source: ArchiveInput) -> zipfile.ZipFile:
    what = "archive" if isinstance(source, (bytes, io.IOBase)) else f"{os.fspath(t.cast(str, source))!r}"
    stream: t.Any = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        return zipfile.ZipFile(stream)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
        raise ArchiveError(f"{what} is not a zip archive: {exc}", codes.NOT_A_ZIP) from None
    except FileNotFoundError:
        raise ArchiveError(f"{what} does not exist", codes.NOT_A_ZIP) from None


def _members(archive: zipfile.ZipFile, limits: ArchiveLimits) -> list[tuple[str, zipfile.ZipInfo]]:
    """The file entries with their safe names, after checking every header."""
    infos = archive.infolist()
    if len(infos) > limits.max_entries:
        raise ArchiveError(
            f"archive has {len(infos)} entries; the limit is {limits.max_entries}",
            codes.ARCHIVE_TOO_MANY_ENTRIES)
    members: list[tuple[str, zipfile.ZipInfo]] = []
    seen: set[str] = set()
    total = 0
    for info in infos:
        name = safe_entry_name(info.filename)
        if _is_symlink(info):
            raise ArchiveError(f"archive entry {info.filename!r} is a symbolic link",
                               codes.ARCHIVE_SYMLINK, info.filename)
        if info.is_dir():
            continue
        if name in seen:
            raise ArchiveError(f"archive entry {info.filename!r} appears twice",
                               codes.ARCHIVE_DUPLICATE_ENTRY, info.filename)
        seen.add(name)
        if info.file_size > limits.max_entry_size:
            raise ArchiveError(
                f"archive entry {info.filename!r} is {info.file_size} bytes; "
                f"the limit is {limits.max_entry_size}",
                codes.ARCHIVE_ENTRY_TOO_LARGE, info.filename)
        total += info.file_size
        if total > limits.max_total_size:
            raise ArchiveError(
                f"archive unpacks to more than {limits.max_total_size} bytes "
                f"(reached at entry {info.filename!r})",
                codes.ARCHIVE_TOO_LARGE, info.filename)
        members.append((name, info))
    return members


class _Budget:
    """Counts the bytes really produced, whatever the headers said."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.total = 0

    def read(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> t.Iterator[bytes]:
        produced = 0
        try:
            with archive.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    produced += len(chunk)
                    self.total += len(chunk)
                    if produced > self.limits.max_entry_size:
                        raise ArchiveError(
                            f"archive entry {info.filename!r} holds more than "
                            f"{self.limits.max_entry_size} bytes",
                            codes.ARCHIVE_ENTRY_TOO_LARGE, info.filename)
                    if self.total > self.limits.max_total_size:
                        raise ArchiveError(
                            f"archive unpacks to more than {self.limits.max_total_size} "
                            f"bytes (reached at entry {info.filename!r})",
                            codes.ARCHIVE_TOO_LARGE, info.filename)
                    yield chunk
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            raise ArchiveError(f"archive entry {info.filename!r} cannot be read: {exc}",
                               codes.ARCHIVE_CORRUPT, info.filename) from None
        if produced != info.file_size:
            raise ArchiveError(
                f"archive entry {info.filename!r} holds {produced} bytes but its "
                f"header says {info.file_size}",
                codes.ARCHIVE_CORRUPT, info.filename)


def read_archive(source: ArchiveInput, limits: ArchiveLimits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """Every file of the archive by its normalised relative path."""
    with _open(source) as archive:
        members = _members(archive, limits)
        budget = _Budget(limits)
        return {name: b"".join(budget.read(archive, info)) for name, info in members}


def extract_archive(source: ArchiveInput, target: str | os.PathLike[str],
                    limits: ArchiveLimits = DEFAULT_LIMITS) -> list[str]:
    """Unpack into ``target`` (created if needed); return the relative paths written.

    Every header is checked before anything is written, so a refused archive
    leaves at most the files of the entries before the one that broke a
    limit while being read.
    """
    root = Path(target).resolve()
    root.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    with _open(source) as archive:
        members = _members(archive, limits)
        budget = _Budget(limits)
        for name, info in members:
            destination = (root / name).resolve()
            # Defence in depth: a folder inside target could be a symlink.
            if destination != root and root not in destination.parents:
                raise ArchiveError(f"archive entry {info.filename!r} would be written "
                                   f"outside {str(root)!r}",
                                   codes.ARCHIVE_UNSAFE_PATH, info.filename)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with open(destination, "wb") as out:
                for chunk in budget.read(archive, info):
                    out.write(chunk)
            written.append(name)
    return written


def package_files(directory: str | os.PathLike[str]) -> list[str]:
    """The files a built archive of ``directory`` contains, as sorted relative paths.

    Version-control folders, ``__pycache__`` and ``.DS_Store`` are left out;
    a symbolic link is refused, since its target may lie outside the package.
    """
    root = Path(directory)
    found: list[str] = []
    for current, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if f not in _IGNORED)
        for entry in [*folders, *files]:
            path = Path(current, entry)
            if path.is_symlink():
                relative = path.relative_to(root).as_posix()
                reason = "a symbolic link; packages cannot contain links"
                raise ArchiveError(f"{relative!r} is {reason}", codes.ARCHIVE_SYMLINK,
                                   relative, reason)
        for name in sorted(files):
            if name in _IGNORED or name.endswith(".pyc"):
                continue
            found.append(Path(current, name).relative_to(root).as_posix())
    return sorted(found)


def build_archive(directory: str | os.PathLike[str],
                  out: str | os.PathLike[str] | t.BinaryIO,
                  exclude: str | os.PathLike[str] | None = None) -> list[str]:
    """Zip a package folder into ``out``; return the entries written.

    The result is reproducible: entries are sorted and carry a fixed time.
    The archive being written (``out``, or ``exclude`` when ``out`` is a
    stream) is left out, so that building into the package's own folder does
    not pack the previous build into the next one. The folder is not
    validated here; callers load it as a package first.
    """
    root = Path(directory)
    names = package_files(root)
    written = exclude
    if written is None and isinstance(out, (str, os.PathLike)):
        written = out
    if written is not None:
        target = Path(written).resolve()
        names = [name for name in names if (root / name).resolve() != target]
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            archive.writestr(info, (root / name).read_bytes())
    return names


def normalise_relative(path: str) -> str | None:
    """``path`` as a clean relative POSIX path, or None if it leaves its folder."""
    unified = path.replace("\\", "/")
    if not unified or unified.startswith("/") or re.match(r"^[A-Za-z]:", unified):
        return None
    clean = posixpath.normpath(unified)
    if clean == ".." or clean.startswith("../") or clean == ".":
        return None
    return clean
