"""The dashboard's multi-step forms without a browser: what a browser posts
turned into laguna.forms answers, the draft that carries them between steps
(and refused when it is not one), where each button leads, and the steps of
a package (its forms, then the application's name from Version 2.2 on)."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from starlette.datastructures import FormData

from laguna.dashboard.applications import Wizard, step_page, title_of
from laguna.dashboard.wizard import MAX_DRAFT, Draft, DraftRefused, Move, move_of, \
    posted_answers, step_after
from laguna.forms import LOCAL_CHOICES, AnswersRefused, read
from laguna.forms.fields import Field

UI = textwrap.dedent("""\
    Version: 2.2
    Application:
      ?:
        type: com.example.Shop
      code: $.shop.code
      open: $.shop.open
      tills: $.hours.tills
    Forms:
      - shop:
          fields:
            - name: code
              type: string
              label: Code
              regexpValidator: '^[A-Z]{3}$'
              errorMessages:
                invalid: Three capital letters.
            - name: open
              type: boolean
              label: Open
            - name: secret
              type: password
              label: Secret
              required: false
            - name: quiet
              type: string
              hidden: true
              initial: hush
      - hours:
          fields:
            - name: tills
              type: integer
              initial: 2
    """)


def wizard() -> Wizard:
    return Wizard({"name": "Shop", "fully_qualified_name": "com.example.Shop"},
                  read(UI, "ui.yaml"), LOCAL_CHOICES)


def test_posted_form_data_becomes_answers() -> None:
    fields = [Field("code", "string", {}), Field("open", "boolean", {}),
              Field("secret", "password", {}), Field("quiet", "string", {"hidden": True})]
    # an unticked box is not sent by browsers: it is false; hidden fields are
    # never read from the post (laguna.forms gives them their initial value)
    posted = FormData([("code", "ABC"), ("secret", "x1"), ("secret-clone", "x2"),
                       ("quiet", "forged"), ("form_key", "k"), ("other", "y")])
    assert posted_answers(fields, posted) == {
        "code": "ABC", "open": "false", "secret": "x1", "secret-clone": "x2"}
    assert posted_answers(fields, FormData([("open", "true")])) == {"open": "true"}


def test_a_draft_round_trips_and_a_bad_one_is_refused() -> None:
    parent = Draft("p1", 1, {"shop": {"code": "ABC"}})
    draft = Draft("p2", 0, {"store": {"name": "stock"}}, "datastore", parent)
    again = Draft.load(draft.dump())
    assert again == draft and again.depth() == 1
    assert again.parent is not None and again.parent.answers == {"shop": {"code": "ABC"}}

    def message(text: str) -> str:
        with pytest.raises(DraftRefused) as caught:
            Draft.load(text)
        return str(caught.value)

    assert message("x" * (MAX_DRAFT + 1)) == \
        f"the form's draft has more than {MAX_DRAFT} characters"
    assert message("{") == "the form's draft is not JSON"
    assert message("[]") == "the form's draft is not a mapping"
    assert message('{"package": "p", "step": -1, "answers": {}}') == \
        "the form's draft lacks its package, step or answers"
    assert message('{"package": "../../environments", "step": 0, "answers": {}}') == \
        "the form's draft names no package id: '../../environments'"
    assert message('{"package": "p", "step": 0, "answers": {"shop": {"code": 3}}}') == \
        "the draft's answers of shop are not texts"
    deep: dict[str, object] | None = None
    for _ in range(6):
        deep = {"package": "p", "step": 0, "answers": {}, "parent": deep}
    assert message(json.dumps(deep)) == "forms are opened at most 4 deep from another"


def test_buttons_lead_to_their_steps() -> None:
    assert move_of(None) == Move("next")   # Enter in a text box
    assert move_of("back") == Move("back")
    assert move_of("new:datastore") == Move("new", "datastore")
    with pytest.raises(DraftRefused, match="no such button: 'new:'"):
        move_of("new:")
    assert [step_after(Move("next"), step, 3) for step in range(3)] == [1, 2, 3]
    assert [step_after(Move("back"), step, 3) for step in range(3)] == [0, 0, 1]
    assert step_after(Move("new", "datastore"), 1, 3) == 1
    assert step_after(Move("start"), 2, 3) == 0


def test_a_packages_steps_end_with_the_applications_name() -> None:
    steps = wizard()
    assert steps.steps == ["shop", "hours", "workflowManagement"]
    assert [title_of(s) for s in steps.steps] == ["Shop", "Hours", "Application name"]
    assert title_of("instanceConfiguration") == "Instance configuration"
    answers = {"shop": {"code": "abc"}}
    with pytest.raises(AnswersRefused) as caught:
        steps.check(answers, 0)
    assert [str(p) for p in caught.value.problems] == ["shop.code: Three capital letters."]
    assert steps.step_of(caught.value.problems) == 0
    answers = {"shop": {"code": "ABC"}, "hours": {"tills": "3"}}
    steps.check(answers, 1)
    [name] = steps.fields(answers, 2)
    assert (name.label, name.props["initial"]) == ("Application Name", "Shop")
    answers["workflowManagement"] = {"application_name": " "}
    with pytest.raises(AnswersRefused) as caught:
        steps.check(answers, 2)
    assert [str(p) for p in caught.value.problems] == [
        "workflowManagement.application_name: This field is required."]
    assert steps.step_of(caught.value.problems) == 2
    answers["workflowManagement"] = {"application_name": "corner-shop"}
    steps.check(answers, 2)
    model = steps.evaluation().fill(answers)
    assert (model["?"]["name"], model["code"], model["open"], model["tills"]) == (
        "corner-shop", "ABC", False, 3)


def test_a_class_field_offers_the_applications_of_its_class() -> None:
    definition = read(textwrap.dedent("""\
        Version: 2
        Application:
          ?:
            type: com.example.Site
          db: $.site.db
        Forms:
          - site:
              fields:
                - name: db
                  type: com.example.Db
                  label: Database
        """), "ui.yaml")
    site = Wizard({"id": "1" * 32, "name": "Site", "fully_qualified_name": "com.example.Site"},
                  definition, LOCAL_CHOICES)
    services = [{"?": {"type": "com.example.Db/1.0@com.example.Db", "id": "a" * 32},
                 "name": "versioned"},
                {"?": {"type": "com.example.Db", "id": "b" * 32, "name": "named"}},
                {"?": {"type": "com.example.Other", "id": "c" * 32}, "name": "other"}]
    shown = step_page(site, Draft("1" * 32), [], {"id": "e", "name": "env",
                                                    "services": services}, None, "key")
    options = re.findall(r'<option value="(\w*)"[^>]*>([^<]*)</option>',
                         bytes(shown.body).decode())
    assert options == [("", "Choose an application"),
                       ("a" * 32, "versioned (com.example.Db/1.0@com.example.Db)"),
                       ("b" * 32, "named (com.example.Db)")]


def test_a_form_validators_message_is_drawn_above_the_fields() -> None:
    definition = read(textwrap.dedent("""\
        Version: 2
        Application:
          ?:
            type: com.example.Pair
        Forms:
          - pair:
              fields:
                - name: low
                  type: integer
                  label: Low
                - name: high
                  type: integer
                  label: High
              validators:
                - expr: $.pair.low < $.pair.high
                  message: Low is below high.
        """), "ui.yaml")
    pair = Wizard({"id": "1" * 32, "name": "Pair", "fully_qualified_name": "com.example.Pair"},
                  definition, LOCAL_CHOICES)
    answers = {"pair": {"low": "5", "high": "2"}}
    with pytest.raises(AnswersRefused) as caught:
        pair.check(answers, 0)
    shown = step_page(pair, Draft("1" * 32, 0, answers), caught.value.problems,
                      {"id": "e", "name": "env", "services": []}, None, "key")
    text = bytes(shown.body).decode()
    assert shown.status_code == 422
    assert re.findall(r'<p class="error"[^>]*>([^<]*)</p>', text) == ["Low is below high."]
    assert 'value="5"' in text and 'value="2"' in text
