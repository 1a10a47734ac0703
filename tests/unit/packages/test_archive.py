"""Archive safety: nothing is read or written outside the package."""

from __future__ import annotations

import io
import stat
import struct
import zipfile
from pathlib import Path

import pytest

from laguna.packages import archive as archive_module
from laguna.packages.archive import (
    ArchiveLimits,
    build_archive,
    extract_archive,
    read_archive,
    safe_entry_name,
)
from laguna.packages.errors import ArchiveError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "packages"


def make_zip(entries: dict[str, bytes], symlinks: tuple[str, ...] = ()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = stat.S_IFLNK | 0o777 if name in symlinks else stat.S_IFREG | 0o644
            info.external_attr = mode << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def understate_size(data: bytes, name: str, declared: int) -> bytes:
    """Rewrite the uncompressed size of ``name`` in both zip headers."""
    patched = bytearray(data)
    encoded = name.encode()
    # Local file header: signature PK\x03\x04, size at offset 22.
    local = patched.find(b"PK\x03\x04" + b"")
    while local != -1:
        name_length = struct.unpack_from("<H", patched, local + 26)[0]
        if patched[local + 30:local + 30 + name_length] == encoded:
            struct.pack_into("<I", patched, local + 22, declared)
        local = patched.find(b"PK\x03\x04", local + 4)
    # Central directory header: signature PK\x01\x02, size at offset 24.
    central = patched.find(b"PK\x01\x02")
    while central != -1:
        name_length = struct.unpack_from("<H", patched, central + 28)[0]
        if patched[central + 46:central + 46 + name_length] == encoded:
            struct.pack_into("<I", patched, central + 24, declared)
        central = patched.find(b"PK\x01\x02", central + 4)
    return bytes(patched)


def refusal(data: bytes, limits: ArchiveLimits = ArchiveLimits()) -> ArchiveError:
    with pytest.raises(ArchiveError) as info:
        read_archive(data, limits)
    return info.value


def test_reads_every_file() -> None:
    data = make_zip({"manifest.yaml": b"a", "Classes/A.yaml": b"b", "./Resources//x": b"c"})
    assert read_archive(data) == {"manifest.yaml": b"a", "Classes/A.yaml": b"b",
                                  "Resources/x": b"c"}


@pytest.mark.parametrize(("name", "message"), [
    ("../x", "archive entry '../x' points outside the package ('..')"),
    ("a/../../x", "archive entry 'a/../../x' points outside the package ('..')"),
    ("..\\x", "archive entry '..\\\\x' points outside the package ('..')"),
    ("/etc/passwd", "archive entry '/etc/passwd' has an absolute path"),
    ("C:/x", "archive entry 'C:/x' has an absolute path"),
])
def test_zip_slip_is_refused(name: str, message: str) -> None:
    error = refusal(make_zip({"manifest.yaml": b"a", name: b"evil"}))
    assert (error.code, error.message, error.entry) == ("LAG-E0551", message, name)


def test_zip_slip_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with pytest.raises(ArchiveError):
        extract_archive(make_zip({"ok.txt": b"ok", "../evil.txt": b"evil"}), target)
    assert not (tmp_path / "evil.txt").exists()
    assert list(target.iterdir()) == []


def test_symlink_entry_is_refused() -> None:
    error = refusal(make_zip({"manifest.yaml": b"a", "link": b"/etc/passwd"}, symlinks=("link",)))
    assert (error.code, error.message, error.entry) == (
        "LAG-E0552", "archive entry 'link' is a symbolic link", "link")


def test_too_many_entries() -> None:
    error = refusal(make_zip({f"f{i}": b"" for i in range(4)}), ArchiveLimits(max_entries=3))
    assert (error.code, error.message) == (
        "LAG-E0553", "archive has 4 entries; the limit is 3")


def test_declared_entry_size_over_limit() -> None:
    error = refusal(make_zip({"big.bin": b"x" * 101}), ArchiveLimits(max_entry_size=100))
    assert (error.code, error.message, error.entry) == (
        "LAG-E0554", "archive entry 'big.bin' is 101 bytes; the limit is 100", "big.bin")


def test_declared_total_size_over_limit() -> None:
    data = make_zip({"a": b"x" * 60, "b": b"x" * 60})
    error = refusal(data, ArchiveLimits(max_total_size=100))
    assert (error.code, error.message, error.entry) == (
        "LAG-E0555", "archive unpacks to more than 100 bytes (reached at entry 'b')", "b")


def test_lying_header_cannot_bypass_the_limit(tmp_path: Path) -> None:
    # The headers claim 10 bytes; the entry really inflates to 100000.
    data = understate_size(make_zip({"bomb.bin": b"\0" * 100_000}), "bomb.bin", 10)
    assert zipfile.ZipFile(io.BytesIO(data)).getinfo("bomb.bin").file_size == 10
    limits = ArchiveLimits(max_entry_size=1000, max_total_size=1000)
    error = refusal(data, limits)
    assert error.code == "LAG-E0556"
    assert error.entry == "bomb.bin"
    assert error.message.startswith("archive entry 'bomb.bin' cannot be read: ")
    with pytest.raises(ArchiveError):
        extract_archive(data, tmp_path / "out", limits)
    assert sum(f.stat().st_size for f in (tmp_path / "out").rglob("*") if f.is_file()) <= 10


@pytest.mark.parametrize(("limits", "code", "message"), [
    (ArchiveLimits(max_total_size=100), "LAG-E0555",
     "archive unpacks to more than 100 bytes (reached at entry 'b')"),
    (ArchiveLimits(max_entry_size=50), "LAG-E0554",
     "archive entry 'a' holds more than 50 bytes"),
])
def test_bytes_are_counted_while_reading(monkeypatch: pytest.MonkeyPatch, limits: ArchiveLimits,
                                         code: str, message: str) -> None:
    # Pretend every header check passed (as if the headers lied in a way
    # zipfile did not notice): the bytes really produced still hit the limit.
    real_members = archive_module._members
    monkeypatch.setattr(archive_module, "_members",
                        lambda archive, _limits: real_members(archive, ArchiveLimits()))
    error = refusal(make_zip({"a": b"x" * 80, "b": b"y" * 80}), limits)
    assert (error.code, error.message) == (code, message)


def test_duplicate_entry_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", b"1")
        archive.writestr("./a.txt", b"2")
    error = refusal(buffer.getvalue())
    assert (error.code, error.message) == ("LAG-E0557", "archive entry './a.txt' appears twice")


def test_not_a_zip() -> None:
    error = refusal(b"hello")
    assert (error.code, error.message) == (
        "LAG-E0550", "archive is not a zip archive: File is not a zip file")


def test_extract_writes_inside_target(tmp_path: Path) -> None:
    written = extract_archive(make_zip({"a/b.txt": b"b", "c.txt": b"c"}), tmp_path / "t")
    assert written == ["a/b.txt", "c.txt"]
    assert (tmp_path / "t" / "a" / "b.txt").read_bytes() == b"b"


def test_safe_entry_name_normalises() -> None:
    assert safe_entry_name("./a//b/./c") == "a/b/c"


def test_build_archive_is_reproducible(tmp_path: Path) -> None:
    first, second = tmp_path / "1.zip", tmp_path / "2.zip"
    names = build_archive(FIXTURES / "app", first)
    build_archive(FIXTURES / "app", second)
    assert first.read_bytes() == second.read_bytes()
    assert names == [
        "Classes/App.yaml", "Classes/Helper.yaml", "Classes/sub/Two.yaml",
        "Resources/script.sh", "Resources/sub/data.txt", "UI/ui.yaml", "logo.png",
        "manifest.yaml",
    ]
    assert sorted(read_archive(first)) == names


def test_build_archive_refuses_symlinks(tmp_path: Path) -> None:
    (tmp_path / "manifest.yaml").write_text("x")
    (tmp_path / "link").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError) as info:
        build_archive(tmp_path, tmp_path.parent / "out.zip")
    assert (info.value.code, info.value.message) == (
        "LAG-E0552", "'link' is a symbolic link; packages cannot contain links")


def test_build_archive_skips_vcs_and_caches(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.pyc").write_text("x")
    (tmp_path / "manifest.yaml").write_text("x")
    assert build_archive(tmp_path, tmp_path.parent / "out.zip") == ["manifest.yaml"]
