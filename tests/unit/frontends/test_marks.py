"""The marks a blueprint's language is recognised by, read without its front end."""

from __future__ import annotations

from pathlib import Path

import pytest

from laguna.frontends.marks import is_assembly, is_tosca


#: file name and text -> whether it is an assembly descriptor
ASSEMBLY_CASES = {
    ("a.yaml", "name: assembly::shop::1.0\n"): True,
    ("a.yml", "description: x\nname: 'resource::db::2.0'\n"): True,
    ("a.yaml", "name: shop\n"): False,
    ("a.yaml", "  name: assembly::shop::1.0\n"): False,
    ("a.json", "name: assembly::shop::1.0\n"): False,
}


@pytest.mark.parametrize("case", list(ASSEMBLY_CASES))
def test_an_assembly_is_recognised_by_its_name_line(tmp_path: Path,
                                                     case: tuple[str, str]) -> None:
    path = tmp_path / case[0]
    path.write_text(case[1])
    assert is_assembly(path) is ASSEMBLY_CASES[case]


def test_missing_and_undecodable_files_are_no_assembly(tmp_path: Path) -> None:
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"name: assembly::\xff\n")
    assert (is_assembly(tmp_path / "missing.yaml"), is_assembly(binary)) == (False, False)


def test_a_csar_folder_is_recognised_by_its_metadata(tmp_path: Path) -> None:
    (tmp_path / "csar" / "TOSCA-Metadata").mkdir(parents=True)
    (tmp_path / "csar" / "TOSCA-Metadata" / "TOSCA.meta").write_text("CSAR-Version: 1.1\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "x.yaml").write_text("Format: 1.0\n")
    assert (is_tosca(tmp_path / "csar"), is_tosca(tmp_path / "plain")) == (True, False)
