"""The forms asked on a terminal (laguna deploy PACKAGE without --form): each
field by its label, its initial value the default, refused answers asked
again with the package's message."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from laguna.cli.formanswers import prompt_answers
from laguna.forms import read

UI = Path(__file__).resolve().parents[3] / "examples" / "webserver" / "UI" / "ui.yaml"


@click.command()
def ask() -> None:
    click.echo(json.dumps(prompt_answers(read(UI.read_text(), str(UI)), "Web Server")))


def test_the_web_server_forms_asked_on_a_terminal() -> None:
    # name: accepted; message: typed; port: 80 refused, then 8090; then the
    # instance's flavor, image, zone and network by default, a naming pattern
    typed = "\nHi there\n80\n\n\n\n\napp-#\n8090\n"
    result = CliRunner().invoke(ask, input=typed)
    assert result.exit_code == 0, result.output
    *_, answers = result.stdout.strip().splitlines()
    assert json.loads(answers) == {
        "appConfiguration.name": "web", "appConfiguration.message": "Hi there",
        "appConfiguration.port": "8090",
        "instanceConfiguration.flavor": "m1.small", "instanceConfiguration.osImage": "ubuntu",
        "instanceConfiguration.availabilityZone": "nova",
        "instanceConfiguration.network": "auto",
        "instanceConfiguration.unitNamingPattern": "app-#"}
    assert result.stderr == ("appConfiguration.port: The port is 1024 or above (the server "
                             "runs unprivileged).\n")
    assert "Server name [web]: " in result.stdout and "Port [8080]: " in result.stdout
