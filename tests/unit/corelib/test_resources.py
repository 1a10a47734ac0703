"""Resources: text, YAML, JSON and bytes of a package's Resources/ files."""

from __future__ import annotations

import pytest

from laguna.corelib.resources import (
    InvalidResource, PackageFiles, ResourceNotFound, package_files,
)


def _laughs(levels: int) -> bytes:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return ("\n".join(lines) + "\n").encode()


FILES = {
    "Resources/a.txt": b"one\r\ntwo\n",
    "Resources/t.yaml": b"when: 2013-05-23\nlist: [1, two]\nexpr: $.x\n",
    "Resources/j.json": b'{"a": [1, null]}',
    "Resources/scripts/b.bin": b"\x00\xff\x10",
    # issue 21: a 1 KB alias bomb (3 GB when PyYAML expands it), JSON nested
    # deeper than Python's json module recurses
    "Resources/bomb.yaml": _laughs(9),
    "Resources/deep.json": b"[" * 100_000 + b"]" * 100_000,
    "Resources/broken.json": b'{"a": }',
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


def test_an_alias_bomb_is_refused_while_loading() -> None:
    with pytest.raises(InvalidResource) as info:
        files().yaml("bomb.yaml")
    assert str(info.value) == ("p/Resources/bomb.yaml:6:20: error[LAG-E0104]: the document "
                               "holds more than 250000 nodes once its aliases are expanded")
    assert info.value.code == "LAG-E0524"


def test_deeply_nested_json_is_refused_before_parsing() -> None:
    with pytest.raises(InvalidResource) as info:
        files().json("deep.json")
    assert str(info.value) == ("p/Resources/deep.json:1:101: error[LAG-E0103]: collections "
                               "nest more than 100 levels deep")


def test_invalid_json_names_the_file() -> None:
    with pytest.raises(InvalidResource) as info:
        files().json("broken.json")
    assert str(info.value) == ("p/Resources/broken.json: invalid JSON: Expecting value: "
                               "line 1 column 7 (char 6)")
