"""The dynamic UI (laguna.forms): ui.yaml files read with positions, answers
checked with the package's own messages, YAQL in Templates and Application
evaluated into the object model."""

from __future__ import annotations

import re
import textwrap
import typing as t
from pathlib import Path

import pytest

from laguna.forms import AnswersRefused, Evaluation, FormError, fill, read
from laguna.yaql.engine import Limits

ROOT = Path(__file__).resolve().parents[3]
HEX_ID = re.compile(r"^[0-9a-f]{32}$")


def ui(text: str) -> t.Any:
    return read(textwrap.dedent(text), "ui.yaml")


def refused(definition: t.Any, answers: dict[str, t.Any]) -> list[str]:
    with pytest.raises(AnswersRefused) as caught:
        fill(definition, answers, "App")
    return [str(problem) for problem in caught.value.problems]


CLUSTER = ui("""\
    Version: 2.4
    Templates:
      node:
        ?:
          type: io.murano.resources.LinuxMuranoInstance
        name: generateHostname($.appConfiguration.pattern, $index)
        flavor: $.appConfiguration.flavor
    Application:
      ?:
        type: com.example.Cluster
      name: $.appConfiguration.name
      nodes: repeat($node, $.appConfiguration.count)
      adminPassword: $.appConfiguration.password
      database: $.appConfiguration.database
    Forms:
      - appConfiguration:
          fields:
            - name: name
              type: string
              label: Cluster name
              regexpValidator: '^[a-z]+$'
              errorMessages:
                invalid: Only lower-case letters, please.
            - name: count
              type: integer
              label: Nodes
              initial: 2
              minValue: 1
              maxValue: 5
            - name: pattern
              type: string
              initial: node-#
              required: false
            - name: flavor
              type: flavor
              label: Flavor
            - name: password
              type: password
              label: Password
            - name: database
              type: io.murano.databases.MySql
              label: Database
              required: false
          validators:
            - expr: $.appConfiguration.name != 'admin'
              message: The cluster cannot be called admin.
    """)


def test_templates_with_repeat_make_one_object_per_count() -> None:
    model = fill(CLUSTER, {"appConfiguration.name": "alpha", "appConfiguration.count": 3,
                           "appConfiguration.password": "Secret1!",
                           "appConfiguration.password-clone": "Secret1!"}, "App")
    ids = [model["?"].pop("id")] + [node["?"].pop("id") for node in model["nodes"]]
    assert all(HEX_ID.match(i) for i in ids) and len(set(ids)) == 4
    assert model == {
        "?": {"type": "com.example.Cluster", "name": "App"},
        "name": "alpha",
        "nodes": [{"?": {"type": "io.murano.resources.LinuxMuranoInstance"},
                   "name": f"node-{index}", "flavor": "m1.small"} for index in (1, 2, 3)],
        "adminPassword": "Secret1!",
        "database": None,
    }


def test_the_package_message_refuses_a_value_its_regexp_refuses() -> None:
    assert refused(CLUSTER, {"appConfiguration.name": "Alpha",
                             "appConfiguration.password": "Secret1!",
                             "appConfiguration.password-clone": "Secret1!"}) == [
        "appConfiguration.name: Only lower-case letters, please."]


def test_a_missing_required_field_and_numbers_out_of_bounds() -> None:
    assert refused(CLUSTER, {"appConfiguration.count": 9,
                             "appConfiguration.password": "Secret1!",
                             "appConfiguration.password-clone": "Secret1!"}) == [
        "appConfiguration.name: This field is required.",
        "appConfiguration.count: Ensure this value is less than or equal to 5."]
    assert refused(CLUSTER, {"appConfiguration.name": "a", "appConfiguration.count": 0,
                             "appConfiguration.password": "Secret1!",
                             "appConfiguration.password-clone": "Secret1!"}) == [
        "appConfiguration.count: Ensure this value is greater than or equal to 1."]
    assert refused(CLUSTER, {"appConfiguration.name": "a", "appConfiguration.count": "two",
                             "appConfiguration.password": "Secret1!",
                             "appConfiguration.password-clone": "Secret1!"}) == [
        "appConfiguration.count: Enter a whole number."]


def test_passwords_are_confirmed_and_complex() -> None:
    assert refused(CLUSTER, {"appConfiguration.name": "a", "appConfiguration.password": "Secret1!",
                             "appConfiguration.password-clone": "Secret2!"}) == [
        "appConfiguration.password: Passwords don't match"]
    assert refused(CLUSTER, {"appConfiguration.name": "a",
                             "appConfiguration.password": "Secret1!"}) == [
        "appConfiguration.password: Please confirm your password"]
    assert refused(CLUSTER, {"appConfiguration.name": "a", "appConfiguration.password": "secret12",
                             "appConfiguration.password-clone": "secret12"}) == [
        "appConfiguration.password: The password must contain at least one letter, one "
        "number and one special character"]


def test_a_form_validator_and_a_cloud_choice() -> None:
    good = {"appConfiguration.password": "Secret1!", "appConfiguration.password-clone": "Secret1!"}
    assert refused(CLUSTER, {**good, "appConfiguration.name": "admin"}) == [
        "appConfiguration: The cluster cannot be called admin."]
    assert refused(CLUSTER, {**good, "appConfiguration.name": "a",
                             "appConfiguration.flavor": "m9.huge"}) == [
        "appConfiguration.flavor: Select a valid choice. m9.huge is not one of the "
        "available choices."]


def test_a_class_field_takes_an_existing_id_or_a_new_object() -> None:
    good = {"appConfiguration.name": "a", "appConfiguration.password": "Secret1!",
            "appConfiguration.password-clone": "Secret1!"}
    assert fill(CLUSTER, {**good, "appConfiguration.database": "0123abc"},
                "App")["database"] == "0123abc"
    database = fill(CLUSTER, {**good, "appConfiguration.database": {
        "?": {"type": "io.murano.databases.MySql"}, "name": "db"}}, "App")["database"]
    assert HEX_ID.match(database["?"].pop("id"))
    assert database == {"?": {"type": "io.murano.databases.MySql"}, "name": "db"}
    assert refused(CLUSTER, {**good, "appConfiguration.database": {"?": {"type": "x.Y"}}}) == [
        "appConfiguration.database: a new object of Database needs `?: {type: ...}` naming "
        "io.murano.databases.MySql"]


def test_field_validators_initial_values_from_earlier_forms_and_ref() -> None:
    definition = ui("""\
        Version: 2
        Parameters:
          greeting: Hello
        Templates:
          volume:
            ?:
              type: io.murano.resources.CinderVolume
            size: $.storage.size
        Application:
          ?:
            type: com.example.App
          title: $.first.title
          copy: $.second.copy
          volume: ref(volume)
          volumeAgain: ref(volume)
          greeting: $greeting
        Forms:
          - first:
              fields:
                - name: title
                  type: string
                  validators:
                    - expr: len($) >= 3
                      message: Three characters at least.
          - second:
              fields:
                - name: copy
                  type: string
                  initial: $.first.title + '!'
          - storage:
              fields:
                - name: size
                  type: integer
                  initial: 1
        """)
    assert refused(definition, {"first.title": "ab"}) == ["first.title: Three characters at least."]
    model = fill(definition, {"first.title": "abc"}, "App")
    volume_id = model["volume"]["?"]["id"]
    assert model["volumeAgain"] == volume_id
    del model["?"]["id"]
    assert model == {"?": {"type": "com.example.App"}, "title": "abc", "copy": "abc!",
                     "volume": {"?": {"type": "io.murano.resources.CinderVolume",
                                      "id": volume_id}, "size": 1},
                     "volumeAgain": volume_id, "greeting": "Hello"}


def test_unknown_answers_are_refused() -> None:
    assert refused(CLUSTER, {"appConfiguration.nmae": "a"}) == [
        "appConfiguration.nmae: no such field",
        "appConfiguration.name: This field is required.",
        "appConfiguration.password: This field is required."]


@pytest.mark.parametrize(("text", "message"), [
    ("Version: 3\nApplication: {}\n", "ui.yaml:1:1: error[LAG-E1800]: Version 3 is not "
                                       "supported (1.x to 2.4)"),
    ("Version: 2\nApplication: {}\nStep: []\n",
     "ui.yaml:3:1: error[LAG-E1800]: unknown section 'Step' (known: Application, Forms, "
     "Parameters, ParametersSource, Templates, Version)"),
    ("Version: 2\nForms: []\n", "ui.yaml:1:1: error[LAG-E1800]: the Application section "
                                "is missing"),
    ("Application: {}\nForms:\n  - one:\n      fields:\n        - name: a\n",
     "ui.yaml:5:11: error[LAG-E1800]: a field of form one has no type"),
    ("Application: {}\nForms:\n  - one:\n      fields:\n        - name: a\n          type: string\n"
     "          lable: A\n", "ui.yaml:7:11: error[LAG-E1800]: field a of form one: unknown "
                             "key 'lable'"),
])
def test_a_bad_ui_yaml_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(FormError) as caught:
        read(text, "ui.yaml")
    assert str(caught.value) == message


def test_a_failing_expression_names_its_line() -> None:
    definition = ui("""\
        Application:
          ?:
            type: com.example.App
          count: int($.one.text)
        Forms:
          - one:
              fields:
                - name: text
                  type: string
        """)
    with pytest.raises(FormError) as caught:
        fill(definition, {"one.text": "x"}, "App")
    assert str(caught.value).startswith(
        "ui.yaml:4:10: error[LAG-E1800]: expression 'int($.one.text)' failed: ")


def test_the_web_server_example_fills_into_its_model() -> None:
    path = ROOT / "examples" / "webserver" / "UI" / "ui.yaml"
    model = fill(read(path.read_text(), str(path)), {"appConfiguration.port": 8081},
                 "Web Server")
    del model["?"]["id"], model["instance"]["?"]["id"]
    assert model == {
        "?": {"type": "org.laguna.examples.WebServer", "name": "Web Server"},
        "name": "web", "message": "Hello from laguna", "port": 8081,
        "instance": {"?": {"type": "io.murano.resources.LinuxMuranoInstance"},
                     "name": "web-1", "flavor": "m1.small", "image": "ubuntu",
                     "keyname": "", "availabilityZone": "nova",
                     "networks": {"useEnvironmentNetwork": True, "useFlatNetwork": False,
                                  "customNetworks": []}}}


def test_only_plain_scalars_are_expressions_and_yaql_tags_force_one() -> None:
    # murano-apps write `initial: 'node-{0}'` and `image: 'hdp-sandbox'`:
    # quoted, they are text; plain, `a-b` would be yaql's `a - b`
    definition = ui("""\
        Application:
          ?:
            type: com.example.App
          image: 'hdp-sandbox'
          quoted: "$.one.text"
          plain: $.one.text
          tagged: !yaql "'x' + $.one.text"
        Forms:
          - one:
              fields:
                - name: text
                  type: string
                  initial: 'node-{0}'
        """)
    model = fill(definition, {}, "App")
    del model["?"]["id"]
    # no Version: 2.4, murano-dashboard's latest, which names the application
    assert model == {"?": {"type": "com.example.App", "name": "App"}, "image": "hdp-sandbox",
                     "quoted": "$.one.text", "plain": "node-{0}", "tagged": "xnode-{0}"}


@pytest.mark.parametrize(("expression", "message"), [
    ("range(100000000).len()", "iterators limit of 100000 items exceeded by a collection of "
                               "more than 100000 items"),
    ("range(100000000).select($ * 2).sum()", "execution_seconds limit of 0.5 s exceeded"),
    ("repeat($t, 5000)", "repeat() makes at most 1000 copies, not 5000"),
])
def test_expressions_run_in_the_sandbox(expression: str, message: str) -> None:
    definition = read(f'Templates:\n  t: {{x: 1}}\nApplication:\n  ?: {{type: a.B}}\n'
                      f'  x: !yaql "{expression}"\n', "ui.yaml")
    with pytest.raises(FormError) as caught:
        fill(definition, {}, "App", bounds=Limits(execution_seconds=0.5))
    assert str(caught.value) == (f"ui.yaml:5:6: error[LAG-E1800]: expression {expression!r} "
                                 f"failed: {message}")


def test_a_regexp_validator_runs_in_the_sandbox() -> None:
    # a catastrophic pattern on `regex` with the filling's deadline: refused, not stuck
    definition = ui("""\
        Application: {?: {type: a.B}, x: $.f.x}
        Forms:
          - f:
              fields:
                - name: x
                  type: string
                  regexpValidator: '^(a+)+$'
        """)
    assert refused(definition, {"f.x": "a" * 40 + "!"}) == ["f.x: Enter a valid value."]


def test_a_step_gives_its_fields_evaluated_over_the_steps_before() -> None:
    # the dashboard draws one form at a time: its fields' properties (here an
    # initial value) come from the answers of the forms before, checked first
    definition = ui("""\
        Version: 2
        Application:
          ?:
            type: com.example.App
          copy: $.second.copy
        Forms:
          - first:
              fields:
                - name: title
                  type: string
                  label: Title
                  maxLength: 5
          - second:
              fields:
                - name: copy
                  type: string
                  label: Copy
                  initial: $.first.title + '!'
                  hidden: $.first.title = 'quiet'
        """)
    [title] = Evaluation(definition, "App").step({}, 0)
    assert (title.name, title.label, title.props["maxLength"]) == ("title", "Title", 5)
    [copy] = Evaluation(definition, "App").step({"first.title": "abc"}, 1)
    assert (copy.props["initial"], copy.props["hidden"]) == ("abc!", False)
    [copy] = Evaluation(definition, "App").step({"first.title": "quiet"}, 1)
    assert copy.props["hidden"] is True
    with pytest.raises(AnswersRefused) as caught:
        Evaluation(definition, "App").step({"first.title": "too long"}, 1)
    assert [str(p) for p in caught.value.problems] == [
        "first.title: Ensure this value has at most 5 characters (it has 8)."]
    # past the last form: every form checked, no fields
    assert Evaluation(definition, "App").step({"first.title": "abc"}, 2) == ()
    with pytest.raises(AnswersRefused):
        Evaluation(definition, "App").step({"first.title": "abc", "second.copy": ""}, 2)
