"""The shell lifecycle driver: variables in, output__KEY=VALUE out."""

from __future__ import annotations

from pathlib import Path

from laguna.frontends.assembly.drivers import Request, ShellDriver, parse_outputs


def _package(tmp_path: Path, body: str) -> Path:
    scripts = tmp_path / "pkg" / "Lifecycle" / "shell" / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "Install.sh").write_text(body)
    return tmp_path / "pkg"


def test_scripts_get_laguna_and_prop_variables(tmp_path: Path) -> None:
    package = _package(tmp_path, 'env | grep -E "^(PROP_|LAGUNA_)" | sort; pwd\n')
    driver = ShellDriver(environ={"PATH": "/usr/bin:/bin", "PROP_stale": "x"})
    reply = driver.run(Request(package, "Install", tmp_path, {"LAGUNA_TRANSITION": "Install"},
                               {"a-b.c": "raw text", "n": 3, "on": False, "l": [1, {"k": "v"}],
                                "none": None}))
    assert reply.exit_code == 0
    assert reply.stdout.splitlines() == [
        "LAGUNA_TRANSITION=Install", 'PROP_a_b_c=raw text', 'PROP_l=[1,{"k":"v"}]',
        "PROP_n=3", "PROP_none=", "PROP_on=false", str(tmp_path)]


def test_outputs_and_exit_status(tmp_path: Path) -> None:
    package = _package(tmp_path, "echo output__ip=10.0.0.1\necho noise\n"
                                 "echo output__x=a=b\necho oops >&2\nexit 3\n")
    reply = ShellDriver(environ={"PATH": "/usr/bin:/bin"}).run(
        Request(package, "Install", tmp_path, {}, {}))
    assert (reply.exit_code, reply.outputs, reply.stderr) == (
        3, {"ip": "10.0.0.1", "x": "a=b"}, "oops\n")


def test_available_means_a_script_exists(tmp_path: Path) -> None:
    package = _package(tmp_path, "exit 0\n")
    driver = ShellDriver()
    assert driver.available(package, "Install") is True
    assert driver.available(package, "Start") is False


def test_parse_outputs_ignores_other_lines() -> None:
    assert parse_outputs("output__a=1\nxoutput__b=2\noutput__c\n") == {"a": "1"}
