"""``--inputs FILE``: one file format (a YAML or JSON map) for every language."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.deploy.inputs import MAX_INPUTS_BYTES, InputsFileError, read_inputs_file


def test_yaml_and_json_maps(tmp_path: Path) -> None:
    as_yaml = tmp_path / "in.yaml"
    as_yaml.write_text("port: 80\ngreeting: hello\nitems: {a: [1, 2]}\n")
    as_json = tmp_path / "in.json"
    as_json.write_text('{"port": 80, "greeting": "hello", "items": {"a": [1, 2]}}')
    wanted = {"port": 80, "greeting": "hello", "items": {"a": [1, 2]}}
    assert read_inputs_file(as_yaml) == read_inputs_file(as_json) == wanted
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert read_inputs_file(empty) == {}


@pytest.mark.parametrize(("text", "message"), [
    ("- 1\n- 2\n", "expected one map of input names to values"),
    ("a: 1\n---\nb: 2\n", "expected one map of input names to values"),
])
def test_what_is_no_map_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    with pytest.raises(InputsFileError) as info:
        read_inputs_file(path)
    assert str(info.value) == f"--inputs {path}: {message}"


def test_bounded_before_it_is_parsed(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * MAX_INPUTS_BYTES + "\n")
    with pytest.raises(InputsFileError) as info:
        read_inputs_file(big)
    assert str(info.value) == f"--inputs {big}: larger than {MAX_INPUTS_BYTES} bytes"
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, "
        f"*{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}, *{chr(97 + n)}]\n" for n in range(9)))
    with pytest.raises(InputsFileError) as info:
        read_inputs_file(bomb)
    assert str(info.value).startswith(f"--inputs {bomb}: ")


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputsFileError) as info:
        read_inputs_file(tmp_path / "nope.yaml")
    assert str(info.value) == f"--inputs {tmp_path / 'nope.yaml'}: No such file or directory"
