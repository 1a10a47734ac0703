"""`Usage: Config` properties and class configuration files.

The MuranoPL side is the conformance package `config` (with its ClassConfigs/
folder); these tests pin the file naming, the errors and the settings.
"""

from __future__ import annotations

import json
import pathlib
import textwrap

import pytest
import semantic_version
from click.testing import CliRunner

from laguna.configfolder import ClassConfigFolder
from laguna.cli.main import cli
from laguna.config import CLASS_CONFIGS_VAR, Config
from laguna.lang import errors
from laguna.lang.classconfig import (
    ClassConfigError, ClassConfigs, ConfigFile, config_file_names,
)
from laguna.lang.classes import PackageClasses
from laguna.lang.executor import Executor
from laguna.lang.types import RuntimePackage
from laguna.testing.packages import core_registry

V = semantic_version.Version

CLASS = """\
    Name: t.Service
    Properties:
      cfgProperty:
        Usage: Config
        Contract: $.int().notNull()
        Default: 123
      normalProperty:
        Contract: $.string().notNull()
        Default: DEFAULT
    Methods:
      values:
        Body:
          - Return: [$.cfgProperty, $.normalProperty]
    """


def executor_for(configs: pathlib.Path | None, version: str = "1.2.3") -> Executor:
    registry = core_registry()
    body = textwrap.dedent(CLASS)
    registry.add(PackageClasses(RuntimePackage("t.pkg", version),
                                [("Classes/Service.yaml", lambda: body)]))
    return Executor(registry,
                    class_configs=ClassConfigFolder(configs) if configs is not None else None)


def values(executor: Executor, properties: dict[str, object] | None = None) -> object:
    obj = executor.load_model({"?": {"id": "s", "type": "t.Service"}, **(properties or {})})
    assert obj is not None
    return executor.call(obj, "values")


def write(folder: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- file names -----------------------------------------------------------------------
def test_file_names_most_specific_first() -> None:
    assert config_file_names("ns.A", V("1.2.3")) == [
        "ns.A-1.2.3.json", "ns.A-1.2.3.yaml", "ns.A-1.2.json", "ns.A-1.2.yaml",
        "ns.A-1.json", "ns.A-1.yaml"]


def test_unversioned_file_names_only_for_major_version_zero() -> None:
    assert config_file_names("ns.A", V("0.3.1"))[-2:] == ["ns.A.json", "ns.A.yaml"]
    assert len(config_file_names("ns.A", V("0.3.1"))) == 8


def test_json_before_yaml_and_specific_before_general(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "ns.A-1.yaml", "x: major\n")
    write(tmp_path, "ns.A-1.2.yaml", "x: minor yaml\n")
    write(tmp_path, "ns.A-1.2.json", '{"x": "minor json"}')
    folder = ClassConfigFolder(tmp_path)
    assert folder.values("ns.A", V("1.2.3")) == {"x": "minor json"}
    assert folder.values("ns.A", V("1.3.0")) == {"x": "major"}
    assert folder.values("ns.A", V("2.0.0")) == {}


def test_files_are_read_once(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.json", '{"x": 1}')
    folder = ClassConfigFolder(tmp_path)
    assert folder.values("ns.A", V("1.0.0")) == {"x": 1}
    path.write_text('{"x": 2}')
    assert folder.values("ns.A", V("1.0.0")) == {"x": 1}


def test_empty_file_configures_nothing(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "ns.A-1.yaml", "")
    write(tmp_path, "ns.B-1.json", "")
    folder = ClassConfigFolder(tmp_path)
    assert folder.values("ns.A", V("1.0.0")) == {}
    assert folder.values("ns.B", V("1.0.0")) == {}


# -- bad files --------------------------------------------------------------------------
def test_invalid_json_names_the_file(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.json", '{"x": }')
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: is not valid JSON "
                               "(Expecting value: line 1 column 7 (char 6))")
    assert info.value.code == "LAG-E0901"
    assert info.value.path == path


def test_invalid_yaml_names_the_file(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.yaml", "x: [1\n")
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: is not valid YAML "
                               "(line 2: expected ',' or ']', but got '<stream end>')")


def test_file_that_is_not_a_mapping(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.yaml", "- 1\n- 2\n")
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: must hold a mapping of "
                               "property names to values, not list")


def test_unreadable_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ns.A-1.json"
    path.write_bytes(b'{"x": "\xff"}')
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value).startswith(f"class configuration file {path}: cannot be read (")


def test_bad_file_surfaces_in_murano_by_its_name(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "t.Service-1.json", "[")
    with pytest.raises(ClassConfigError) as info:
        values(executor_for(tmp_path))
    assert errors.murano_names(info.value) == ["ClassConfigError"]


# -- values (the original engine's test cases) ---------------------------------------------
def test_config_property_from_the_file(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "t.Service-1.2.3.json", json.dumps({"cfgProperty": "987"}))
    assert values(executor_for(tmp_path)) == (987, "DEFAULT")


def test_config_property_is_not_taken_from_the_object_model(tmp_path: pathlib.Path) -> None:
    assert values(executor_for(tmp_path), {"cfgProperty": 555}) == (123, "DEFAULT")


def test_config_file_replaces_the_default_of_other_properties(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "t.Service-1.json", json.dumps({"normalProperty": "custom"}))
    assert values(executor_for(tmp_path)) == (123, "custom")


def test_object_model_wins_over_config_for_in_properties(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "t.Service-1.json", json.dumps({"normalProperty": "custom"}))
    assert values(executor_for(tmp_path), {"normalProperty": "qq"}) == (123, "qq")


def test_no_folder_means_defaults() -> None:
    assert values(executor_for(None)) == (123, "DEFAULT")


def test_missing_folder_means_defaults(tmp_path: pathlib.Path) -> None:
    assert values(executor_for(tmp_path / "absent")) == (123, "DEFAULT")


def test_config_value_still_meets_the_contract(tmp_path: pathlib.Path) -> None:
    write(tmp_path, "t.Service-1.json", json.dumps({"cfgProperty": "many"}))
    with pytest.raises(errors.ContractViolationException) as info:
        values(executor_for(tmp_path))
    assert str(info.value).startswith("property t.Service.cfgProperty: ")


# -- settings and `laguna test` ---------------------------------------------------------
def test_setting_from_the_environment(tmp_path: pathlib.Path) -> None:
    config = Config.from_environ({CLASS_CONFIGS_VAR: str(tmp_path)})
    assert config.class_configs == tmp_path


def test_setting_default_is_under_the_data_dir() -> None:
    config = Config.from_environ({"HOME": "/home/u"})
    assert config.class_configs == pathlib.Path("/home/u/.local/share/laguna/class-configs")


def test_setting_defaults_to_none_when_built_in_code() -> None:
    assert Config(database_url="sqlite://").class_configs is None


def _package(tmp_path: pathlib.Path) -> pathlib.Path:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(textwrap.dedent("""\
        Format: 1.4
        Type: Library
        FullName: t.pkg
        Version: 1.0.0
        Classes:
          t.pkg.Cases: Cases.yaml
        """))
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent("""\
        Namespaces:
          =: t.pkg
          std: io.murano
        Name: Cases
        Extends: std:test.TestFixture
        Properties:
          where:
            Usage: Config
            Contract: $.string()
            Default: nowhere
        Methods:
          testWhere:
            Body:
              - $.assertEqual(expected, $.where)
        """))
    return package


def _configs(folder: pathlib.Path, where: str) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    write(folder, "t.pkg.Cases-1.json", json.dumps({"where": where}))
    return folder


def test_laguna_test_uses_the_package_class_configs_folder(tmp_path: pathlib.Path) -> None:
    package = _package(tmp_path)
    _configs(package / "ClassConfigs", "expected")
    result = CliRunner().invoke(cli, ["test", str(package)],
                                env={CLASS_CONFIGS_VAR: str(_configs(tmp_path / "env", "env"))})
    assert result.output.splitlines()[-1] == "1 passed, 0 failed", result.output


def test_laguna_test_option_wins(tmp_path: pathlib.Path) -> None:
    package = _package(tmp_path)
    _configs(package / "ClassConfigs", "package")
    option = _configs(tmp_path / "option", "expected")
    result = CliRunner().invoke(cli, ["test", str(package), "--class-configs", str(option)])
    assert result.output.splitlines()[-1] == "1 passed, 0 failed", result.output


def test_laguna_test_falls_back_to_the_setting(tmp_path: pathlib.Path) -> None:
    package = _package(tmp_path)
    result = CliRunner().invoke(
        cli, ["test", str(package)],
        env={CLASS_CONFIGS_VAR: str(_configs(tmp_path / "env", "expected"))})
    assert result.output.splitlines()[-1] == "1 passed, 0 failed", result.output


# -- the source interface (the language reads no files itself) ------------------------------
class DictSource:
    """Configuration files held in memory; records what was asked for."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files
        self.asked: list[str] = []

    def read(self, name: str) -> ConfigFile | None:
        self.asked.append(name)
        text = self.files.get(name)
        return None if text is None else ConfigFile(f"mem:{name}", text)


def test_class_configs_ask_the_source_by_file_name_most_specific_first() -> None:
    source = DictSource({"ns.A-1.yaml": "x: 1\n"})
    assert ClassConfigs(source).values("ns.A", V("1.2.3")) == {"x": 1}
    assert source.asked == ["ns.A-1.2.3.json", "ns.A-1.2.3.yaml", "ns.A-1.2.json",
                            "ns.A-1.2.yaml", "ns.A-1.json", "ns.A-1.yaml"]


def test_class_configs_read_each_class_version_once() -> None:
    source = DictSource({"ns.A-1.yaml": "x: 1\n", "ns.A-2.yaml": "x: 2\n"})
    configs = ClassConfigs(source)
    version = V("1.2.3")
    first = configs.values("ns.A", version)
    assert configs.values("ns.A", version) is first
    assert configs.values("ns.A", V("1.2.3")) is first   # another object, the same version
    assert configs.values("ns.A", V("2.0.0")) == {"x": 2}
    assert configs.values("ns.B", version) == {}
    assert len(source.asked) == 6 * 3


def test_errors_name_the_file_as_the_source_locates_it() -> None:
    configs = ClassConfigs(DictSource({"ns.A-1.json": "[1]"}))
    with pytest.raises(ClassConfigError) as info:
        configs.values("ns.A", V("1.0.0"))
    assert str(info.value) == ("class configuration file mem:ns.A-1.json: must hold a "
                               "mapping of property names to values, not list")
    assert info.value.path == "mem:ns.A-1.json"


def test_executor_takes_values_from_an_in_memory_source() -> None:
    registry = core_registry()
    body = textwrap.dedent(CLASS)
    registry.add(PackageClasses(RuntimePackage("t.pkg", "1.2.3"),
                                [("Classes/Service.yaml", lambda: body)]))
    configs = ClassConfigs(DictSource({"t.Service-1.json": '{"cfgProperty": 7}'}))
    assert values(Executor(registry, class_configs=configs)) == (7, "DEFAULT")


# -- issue 21: the bounds of class files hold for configuration files ------------------
def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_in_a_configuration_file_is_refused(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.yaml", _laughs(9))
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: is refused (line 6: the "
                               "document holds more than 250000 nodes once its aliases are "
                               "expanded)")
    assert info.value.code == "LAG-E0901"


def test_deeply_nested_json_in_a_configuration_file_is_refused(tmp_path: pathlib.Path) -> None:
    # 100,000 nested lists ended in a RecursionError traceback
    path = write(tmp_path, "ns.A-1.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: is refused (line 1: "
                               "collections nest more than 100 levels deep)")


def test_deeply_nested_yaml_in_a_configuration_file_is_refused(tmp_path: pathlib.Path) -> None:
    path = write(tmp_path, "ns.A-1.yaml", "x: " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(ClassConfigError) as info:
        ClassConfigFolder(tmp_path).values("ns.A", V("1.0.0"))
    assert str(info.value) == (f"class configuration file {path}: is refused (line 1: "
                               "collections nest more than 100 levels deep)")
