"""``laguna deploy PACKAGE --form answers.yaml``: the web server example's
ui.yaml filled with answers, its application deployed on the local cloud with
real agents, its page answering with the text the form gave."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from .helpers import EXAMPLES, laguna, nothing_left, unreachable, wait_for_page


def test_web_server_deployed_from_its_forms(workdir: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("appConfiguration.message: Hello from a form\n"
                       "appConfiguration.port: 8094\n"
                       "instanceConfiguration.unitNamingPattern: front-#\n")
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver"), "--form", str(answers))
    assert (code, result["status"], result["name"]) == (0, "ok", "webserver"), result["error"]
    url = result["outputs"]["web.url"]
    assert url.endswith(":8094/")
    assert sorted((c["name"], c["type"]) for c in result["components"].values()) == [
        ("front-1", "io.murano.resources.LinuxMuranoInstance"),
        ("web", "org.laguna.examples.WebServer")]
    assert "<h1>Hello from a form</h1>" in wait_for_page(url, "Hello from a form")

    code, result = laguna(workdir, "undeploy", "webserver")
    assert (code, result["state"]) == (0, "undeployed")
    assert unreachable(url)
    nothing_left(workdir)


def test_refused_answers_deploy_nothing(workdir: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("appConfiguration.port: 80\n")
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver"), "--form", str(answers))
    assert code == 2
    assert result["error"]["message"] == (
        f"{answers}: the form's answers are refused:\n"
        "  appConfiguration.port: The port is 1024 or above (the server runs unprivileged).")


def test_the_forms_are_asked_only_when_asked_for(workdir: Path) -> None:
    # `--form -` needs a terminal (here: none, and --json)
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver"), "--form", "-")
    assert (code, result["error"]["message"]) == (
        2, "--form - asks the forms' fields on a terminal: give an answers file instead")
    assert not (workdir / ".laguna" / "forms").exists()


def test_the_cloud_fields_offer_the_deploy_s_cloud(workdir: Path, tmp_path: Path) -> None:
    # the ssh cloud offers its inventory's labels: the local cloud's image is
    # refused, a label is accepted (a dry run: no machine is reached)
    inventory = tmp_path / "inventory.yaml"
    inventory.write_text("machines:\n  - {address: 192.0.2.1, user: u, agent: true, "
                         "labels: [web]}\n")
    answers = tmp_path / "answers.yaml"
    answers.write_text("instanceConfiguration.osImage: ubuntu\n")
    ssh = ("--cloud", "ssh", "--inventory", str(inventory), "--dry-run")
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver"), "--form", str(answers),
                          *ssh)
    assert (code, result["error"]["message"]) == (2, (
        f"{answers}: the form's answers are refused:\n  instanceConfiguration.osImage: "
        "Select a valid choice. ubuntu is not one of the available choices."))
    answers.write_text("instanceConfiguration.osImage: web\n")
    code, result = laguna(workdir, "deploy", str(EXAMPLES / "webserver"), "--form", str(answers),
                          *ssh)
    assert (code, result["status"]) == (0, "ok"), result["error"]
    model = (workdir / ".laguna" / "forms" / "webserver.yaml").read_text()
    assert "image: web\n" in model and "flavor: any\n" in model


def test_parameters_source_is_called_by_the_engine(workdir: Path, tmp_path: Path) -> None:
    # the ui.yaml's ParametersSource (a static method of the package) gives the
    # fields' initial values, over the file's own Parameters
    sourced = Path(__file__).parents[1] / "fixtures" / "forms" / "sourced"
    answers = tmp_path / "answers.yaml"
    answers.write_text("{}\n")
    code, result = laguna(workdir, "deploy", str(sourced), "--form", str(answers), "--dry-run")
    assert (code, result["status"]) == (0, "ok"), result["error"]
    [model] = yaml.safe_load((workdir / ".laguna" / "forms" / "sourced.yaml").read_text())
    assert (model["greeting"], model["region"]) == ("Hello from a static method", "south")

    broken = tmp_path / "sourced"
    shutil.copytree(sourced, broken)
    ui = broken / "UI" / "ui.yaml"
    ui.write_text(ui.read_text().replace("ParametersSource: formParameters",
                                         "ParametersSource: org.laguna.tests.Sourced.nothing"))
    code, result = laguna(workdir, "deploy", str(broken), "--form", str(answers), "--dry-run")
    assert (code, result["error"]["message"]) == (
        2, f"{broken}: ParametersSource org.laguna.tests.Sourced.nothing: "
           'Method "nothing" is not found in class org.laguna.tests.Sourced')
