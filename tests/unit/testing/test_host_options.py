"""`laguna test --secrets` and `--engine-settings`: what decryptData() and
config() answer in the tested code."""

import pathlib
import textwrap

from click.testing import CliRunner

from laguna.cli.main import cli
from laguna.config import Config

CASES = """\
    Namespaces:
      =: t.pkg
      std: io.murano
    Name: Cases
    Extends: std:test.TestFixture
    Methods:
      testSecret:
        Body:
          - $.assertEqual('s3cret', decryptData('ref-1'))
    """


def write_package(tmp_path: pathlib.Path) -> pathlib.Path:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.pkg\nClasses:\n  t.pkg.Cases: Cases.yaml\n")
    (package / "Classes" / "Cases.yaml").write_text(textwrap.dedent(CASES))
    return package


def test_secrets_file_answers_decrypt_data(tmp_path):
    package = write_package(tmp_path)
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("ref-1: s3cret\n")
    result = CliRunner().invoke(cli, ["test", str(package), "--secrets", str(secrets)])
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"
    assert result.exit_code == 0


def test_without_secrets_decrypt_data_fails(tmp_path):
    package = write_package(tmp_path)
    result = CliRunner().invoke(cli, ["test", str(package)])
    lines = result.output.splitlines()
    assert lines[1] == ("  castellan.common.exception.AuthTypeInvalidError: decryptData() needs "
                        "a key manager, and none is configured")
    assert result.exit_code == 1


def test_secrets_file_must_be_a_mapping(tmp_path):
    package = write_package(tmp_path)
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text("- a\n")
    result = CliRunner().invoke(cli, ["test", str(package), "--secrets", str(secrets)])
    assert result.exit_code == 1
    assert result.output == (f"error[LAG-E1300]: secrets file {secrets} is not a mapping "
                             "[invalid_value]\n")


def test_engine_settings_come_from_the_environment(tmp_path):
    config = Config.from_environ({"HOME": str(tmp_path),
                                  "LAGUNA_ENGINE_SETTINGS": str(tmp_path / "s.yaml")})
    assert config.engine_settings == tmp_path / "s.yaml"
    assert Config.from_environ({"HOME": str(tmp_path)}).engine_settings is None


def test_engine_settings_file_is_the_hosts_settings(tmp_path):
    from laguna.cli.commands.test import _host
    settings = tmp_path / "s.yaml"
    settings.write_text("rabbitmq: {host: mq.local, port: 5672}\nhome_region: north\n")
    host = _host(settings, None)
    assert host.settings == {"rabbitmq": {"host": "mq.local", "port": 5672},
                             "home_region": "north"}
    assert type(host.decryptor).__name__ == "NoDecryptor"
