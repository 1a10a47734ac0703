"""One working directory, one store, one catalog: `laguna package`, `laguna
serve` (the API) and the deployments of a working directory see the same
packages, and a read creates no store anywhere."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from laguna.cli.main import cli
from tests.unit.api.idle import idle_app
from tests.unit.api.packages import package_zip

EXAMPLES = Path(__file__).parents[3] / "examples"


def laguna(home: Path, *args: str) -> tuple[int, str]:
    # no $LAGUNA_DATABASE_URL: the default catalog is what is tested
    env = {"HOME": str(home), "XDG_DATA_HOME": "", "LAGUNA_DATABASE_URL": "",
           "LAGUNA_WORKDIR": ""}
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def served(workdir: Path) -> tuple[TestClient, dict[str, str]]:
    app, token = idle_app(workdir, "local", "alice")
    return TestClient(app), {"X-Auth-Token": token}


def test_the_cli_and_the_api_share_the_working_directorys_catalog(tmp_path: Path) -> None:
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    code, output = laguna(home, "package", "import", str(EXAMPLES / "hello"), "--public",
                          "--workdir", str(workdir))
    assert code == 0, output
    client, headers = served(workdir)
    with client:
        listed = client.get("/v1/catalog/packages", headers=headers).json()["packages"]
        assert [p["fully_qualified_name"] for p in listed] == ["test.smoke"]
        uploaded = client.post(
            "/v1/catalog/packages", headers=headers, data={"__metadata__": "{}"},
            files={"package": ("p.zip", package_zip("com.example.Api"), "application/zip")})
        assert uploaded.status_code == 200, uploaded.text
    code, output = laguna(home, "--workdir", str(workdir), "package", "list")
    assert code == 0
    assert [line.split()[0] for line in output.splitlines()[2:]] == [
        "com.example.Api", "test.smoke"], output
    assert not (home / ".local").exists()   # nothing in the user's data folder


def test_a_read_creates_no_store(tmp_path: Path) -> None:
    workdir, home = tmp_path / "work", tmp_path / "home"
    workdir.mkdir()
    assert laguna(home, "package", "list", "--workdir", str(workdir)) == (0, "no packages\n")
    code, output = laguna(home, "package", "show", "com.example.Nope", "--workdir", str(workdir))
    assert (code, output) == (
        1, "error[LAG-E0560]: package 'com.example.Nope' not found [package_not_found]\n")
    assert list(workdir.iterdir()) == []
    assert not (home / ".local").exists()
