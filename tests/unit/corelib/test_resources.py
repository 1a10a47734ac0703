"""Resources: text, YAML, JSON and bytes of a package's Resources/ files."""

from __future__ import annotations

import pytest

from laguna.corelib.resources import PackageFiles, ResourceNotFound, package_files

FILES = {
    "Resources/a.txt": b"one\r\ntwo\n",
    "Resources/t.yaml": b"when: 2013-05-23\nlist: [1, two]\nexpr: $.x\n",
    "Resources/j.json": b'{"a": [1, null]}',
    "Resources/scripts/b.bin": b"\x00\xff\x10",
}


def files() -> PackageFiles:
    return PackageFiles(lambda path: FILES[path], "p")


def test_string_is_text_with_universal_newlines() -> None:
    assert files().string("a.txt") == "one\ntwo\n"


def test_binary_string_is_bytes() -> None:
    data = files().string("scripts/b.bin", binary=True)
    assert isinstance(data, bytes)
    assert data == b"\x00\xff\x10"


def test_yaml_keeps_dates_and_expressions_as_strings() -> None:
    assert files().yaml("t.yaml") == {"when": "2013-05-23", "list": [1, "two"], "expr": "$.x"}


def test_json() -> None:
    assert files().json("j.json") == {"a": [1, None]}


def test_missing_file() -> None:
    with pytest.raises(ResourceNotFound, match="package p has no resource 'x.txt'"):
        files().string("x.txt")


def test_paths_stay_inside_resources() -> None:
    with pytest.raises(ResourceNotFound, match="outside the Resources folder"):
        files().string("../manifest.yaml")


class CountingSource:
    """A loaded package's files, counting the reads that reach it."""

    def __init__(self) -> None:
        self.reads: list[str] = []

    def read(self, path: str) -> bytes:
        self.reads.append(path)
        return FILES[path]


def test_a_package_file_is_read_once_for_every_call() -> None:
    source = CountingSource()

    class Holder:
        pass
    holder = Holder()
    holder.source = source  # type: ignore[attr-defined]

    class Executor:
        class classes:
            @staticmethod
            def package_of(package: object) -> Holder:
                return holder

    class Class:
        class package:
            name = "p"

    for _ in range(3):
        assert package_files(Executor(), Class()).string("a.txt") == "one\ntwo\n"  # type: ignore[arg-type]
    assert package_files(Executor(), Class()).json("j.json") == {"a": [1, None]}  # type: ignore[arg-type]
    assert source.reads == ["Resources/a.txt", "Resources/j.json"]
    with pytest.raises(ResourceNotFound, match="package p has no resource 'x.txt'"):
        package_files(Executor(), Class()).string("x.txt")  # type: ignore[arg-type]
    assert source.reads == ["Resources/a.txt", "Resources/j.json", "Resources/x.txt"]
