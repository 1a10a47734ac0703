"""The MuranoPL front end's parts without a real cloud: model files, redeploy
merging, the services adapter over a recording cloud, error kinds, and a dry
run of the examples through the deployment service."""

from __future__ import annotations

import dataclasses
import json
import typing as t
from pathlib import Path

import pytest
import yaml

from laguna.agent.errors import AgentTimeout
from laguna.agent.transport import RecordingAgent
from laguna.cloud.recording import RecordingCloud
from laguna.deploy.context import Resources, StoredState
from laguna.deploy.errors import Rejected
from laguna.deploy.frontend import FrontendRegistry, PrepareOptions
from laguna.deploy.service import Service
from laguna.deploy.workdir import Workdir
from laguna.frontends.muranopl import MuranoPlFrontend
from laguna.hosts.factory import host_resources
from laguna.frontends.muranopl import model as models
from laguna.frontends.muranopl.frontend import Prepared, TrialLoad
from laguna.frontends.muranopl import redeploy
from laguna.frontends.muranopl.services import AgentTimeoutError, CloudFailure, CloudServices
from laguna.lang.executor import Executor

EXAMPLES = Path(__file__).parents[3] / "examples"


class Reports:
    def __init__(self) -> None:
        self.reports: list[tuple[str, str, str | None]] = []
        self.components: list[tuple[str, str]] = []

    def report(self, level: str, text: str, object_id: str | None = None) -> None:
        self.reports.append((level, text, object_id))

    def component(self, object_id: str, type: str, name: str, state: str) -> None:
        self.components.append((object_id, state))

    def track(self, object_id: str, kind: str, type_name: str, title: str | None = None,
              unit_count: int | None = None) -> None:
        self.components.append((object_id, f"tracked as {kind}"))

    def untrack(self, object_id: str) -> None:
        self.components.append((object_id, "untracked"))


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


# -- model files ------------------------------------------------------------------------
def test_applications_are_wrapped_into_an_environment_with_a_default_network(
        tmp_path: Path) -> None:
    path = write(tmp_path / "m.json", {"?": {"id": "a", "type": "x.App"}, "name": "a"})
    model, wrapped = models.read_model(path)
    root = model["Objects"]
    assert wrapped and root["?"]["type"] == "io.murano.Environment"
    assert root["applications"][0]["?"]["id"] == "a"
    assert root["defaultNetworks"]["environment"]["?"]["type"] == \
        "io.murano.resources.NeutronNetwork"
    settled = models.settle_wrapped(model, "e1", "shop")
    assert settled["Objects"]["?"]["id"] == "e1"
    assert settled["Objects"]["defaultNetworks"]["environment"]["name"] == "shop-network"


def test_recognises_models_and_packages_only(tmp_path: Path) -> None:
    assert models.recognises(EXAMPLES / "webserver")
    assert models.recognises(EXAMPLES / "webserver" / "web.yaml")
    assert not models.recognises(write(tmp_path / "t.yaml", {"tosca_definitions_version": 1}))
    assert not models.recognises(tmp_path / "missing.yaml")


def test_an_unreadable_file_is_model_invalid_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a: [unclosed\n")
    with pytest.raises(Rejected) as caught:
        models.read_model(path)
    assert caught.value.kind == "model_invalid" and str(path) in caught.value.message


def test_an_id_yaml_reads_as_a_number_is_model_invalid(tmp_path: Path) -> None:
    # an unquoted id of digits was a number, and the store's insert an OverflowError
    path = tmp_path / "app.yaml"
    path.write_text("- ?: {id: a1111111111111111111111111111111, type: t.App}\n"
                    "  instance:\n"
                    "    ?: {id: 22222222222222222222222222222222, type: t.Instance}\n")
    with pytest.raises(Rejected) as caught:
        models.read_model(path)
    assert caught.value.kind == "model_invalid"
    assert caught.value.message == (
        f"{path}: [0].instance: the id 22222222222222222222222222222222 is a number, not a "
        "string (quote it)")


def test_settings_set_application_properties(tmp_path: Path) -> None:
    model, _ = models.read_model(EXAMPLES / "dashboard" / "shop.yaml")
    changed = models.apply_settings(model, {"store.port": "7071", "key": "other"}, "shop")
    store, dashboard = changed["Objects"]["applications"]
    assert store["port"] == 7071 and "port" not in dashboard
    assert dashboard["key"] == "other"
    with pytest.raises(Rejected):
        models.apply_settings(model, {"nothing": "1"}, "shop")


# -- redeploy ---------------------------------------------------------------------------
def _stored_header(object_id: str, type_name: str) -> dict[str, t.Any]:
    """An object's header as a deploy stores it: with its package, version and actions."""
    return {"type": type_name, "id": object_id, "package": f"pkg.{type_name}",
            "version": "1.2.0", "_actions": {f"{object_id}_act": {
                "enabled": True, "name": "act", "title": "act"}}}


def test_a_new_model_is_applied_to_the_stored_one_by_object_id() -> None:
    # stored headers as deploys write them; the user's new file has plain ones
    stored = {"Objects": {"?": _stored_header("env", "E"), "applications": [
        {"?": _stored_header("a", "A"), "url": "http://kept/", "message": "old"},
        {"?": _stored_header("b", "B"), "url": "http://gone/"}]},
        "Attributes": [["a", "A", "deployed", True]]}
    new = {"Objects": {"?": {"id": "env", "type": "E"}, "applications": [
        {"?": {"id": "a", "type": "A"}, "message": "new"},
        {"?": {"id": "c", "type": "C"}}]}}
    data = redeploy.deployment_model(new, stored)
    a, c = data["Objects"]["applications"]
    # unchanged objects keep what was stored, header included: they are not new
    assert a == {"?": _stored_header("a", "A"), "url": "http://kept/", "message": "new"}
    assert data["Objects"]["?"] == _stored_header("env", "E")
    assert c == {"?": {"id": "c", "type": "C"}}
    assert data["ObjectsCopy"] == stored["Objects"]
    assert data["Attributes"] == stored["Attributes"]
    assert redeploy.removed_ids(data) == ["b"]
    assert redeploy.removal_model(stored)["Objects"] is None


# -- services ---------------------------------------------------------------------------
TEMPLATE = {"heat_template_version": "2013-05-23", "resources": {
    "web": {"type": "OS::Nova::Server",
            "properties": {"name": "web", "user_data": "input_queue = e1-ha"}}}}


def test_plans_go_to_the_server_whose_user_data_names_the_key() -> None:
    agents: dict[str, RecordingAgent] = {}
    plan: list[dict] = []

    def agent(host: object) -> RecordingAgent:
        return agents.setdefault(host.server_name, RecordingAgent(host.server_name))  # type: ignore[attr-defined]
    services = CloudServices(RecordingCloud(), agent, Reports(), "e1", "shop", plan=plan)
    services.push_stack("murano-e1", TEMPLATE, {})
    result = services.agent_execute("e1-ha", {"FormatVersion": "2.0.0", "ID": "p1",
                                              "Name": "Deploy"}, 10)
    assert result is not None and result["ErrorCode"] == 0
    assert [entry["kind"] for entry in plan] == ["stack", "agent"]
    assert plan[1]["host"] == "web" and agents["web"].plans[0]["Name"] == "Deploy"


def test_agent_timeouts_and_cloud_errors_become_muranopl_exceptions() -> None:
    agent = RecordingAgent("web").then(AgentTimeout("p1", 2))
    services = CloudServices(RecordingCloud(), lambda host: agent, Reports(), "e1", "shop")
    services.push_stack("murano-e1", TEMPLATE, {})
    with pytest.raises(AgentTimeoutError, match="the agent of web gave no result for plan "
                                                "'Deploy' within 2 seconds"):
        services.agent_execute("e1-ha", {"ID": "p1", "Name": "Deploy"}, 2)
    broken = {"heat_template_version": "2013-05-23", "resources": {
        "port": {"type": "OS::Neutron::Port",
                 "properties": {"network_id": {"get_resource": "nowhere"}}}}}
    with pytest.raises(CloudFailure) as caught:
        services.push_stack("murano-e1", broken, {})
    assert caught.value.resource == "port"


# -- the whole front end, dry ----------------------------------------------------------
def test_dry_run_of_the_linked_examples_through_the_service(tmp_path: Path) -> None:
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(EXAMPLES / "dashboard" / "shop.yaml",
                            PrepareOptions(libs=(EXAMPLES,)), dry_run=True)
    assert result.status == "ok", result.error
    assert [entry["plan"]["Name"] for entry in result.plan or () if entry["kind"] == "agent"] \
        == ["Deploy Key-Value Store", "Deploy Dashboard"]
    assert set(result.outputs) == {"store.endpoint", "dashboard.url"}
    assert not (tmp_path / ".laguna" / "cloud").exists()


def test_an_instance_whose_custom_networks_are_null_joins_the_environment_s(
        tmp_path: Path) -> None:
    # a form's "Auto" network written as the custom networks (murano-apps'
    # GoCD: customNetworks: $.appConfiguration.network[0]) is null: no network
    # besides the environment's, as the original engine made it an empty list
    model = yaml.safe_load((EXAMPLES / "webserver" / "web.yaml").read_text())
    model[0]["instance"]["networks"] = {"useEnvironmentNetwork": True,
                                        "useFlatNetwork": False, "customNetworks": None}
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(write(tmp_path / "m.json", model),
                            PrepareOptions(libs=(EXAMPLES,)), dry_run=True)
    assert result.status == "ok", result.error
    [*_, last] = [entry for entry in result.plan or () if entry["kind"] == "stack"]
    ports = [name for name, resource in last["template"]["resources"].items()
             if resource["type"] == "OS::Neutron::Port"]
    assert len(ports) == 1 and ports[0].endswith("-web-1"), ports


def test_a_model_given_as_data_dry_runs_and_keeps_nothing(tmp_path: Path) -> None:
    # the API's path (Service.deploy_data) with dry_run: what the engine would
    # deploy, checked without a cloud (benchmarks/forms_murano_apps.py)
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    model = yaml.safe_load((EXAMPLES / "webserver" / "web.yaml").read_text())
    result = service.deploy_data("shop", "muranopl", {"Objects": models.wrap(model, "shop")},
                                 PrepareOptions(libs=(EXAMPLES,)), dry_run=True)
    assert (result.status, result.name, set(result.outputs)) == ("ok", "shop", {"web.url"})
    assert [e["plan"]["Name"] for e in result.plan or () if e["kind"] == "agent"] == [
        "Deploy Web Server"]
    after = service.status("shop")
    assert after.error is not None and after.error.kind == "environment_not_found"


def test_a_missing_class_is_rejected_naming_it(tmp_path: Path) -> None:
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    path = write(tmp_path / "m.json", [{"?": {"id": "a", "type": "org.nowhere.Missing"}}])
    result = service.deploy(path, PrepareOptions(), dry_run=True)
    assert result.status == "rejected"
    assert result.error is not None and result.error.kind == "class_not_found"
    assert "org.nowhere.Missing" in result.error.message


PARTS_APP = """\
Namespaces:
  =: org.test.parts
  std: io.murano
---
Name: Part
Properties:
  size:
    Contract: $.int()
---
Name: App
Extends: std:Application
Properties:
  parts:
    Contract: [$.class(Part)]
    Usage: Out
  byName:
    Contract: {}
    Usage: Out
  kind:
    Contract: $
    Usage: Out
Methods:
  deploy:
    Body:
      - $.parts: list(new(Part, $this, size => 1), new(Part, $this, size => 2))
      - $.byName: dict(first => $.parts[0], sizes => $.parts.select($.size))
      - $.kind: type($this)
"""


def test_outputs_holding_objects_give_their_ids(tmp_path: Path) -> None:
    package = tmp_path / "parts"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Application\nFullName: org.test.parts.App\nName: Parts\n"
        "Classes:\n  org.test.parts.App: App.yaml\n  org.test.parts.Part: App.yaml\n")
    (package / "Classes" / "App.yaml").write_text(PARTS_APP)
    path = write(tmp_path / "m.json", [{"?": {"id": "a1", "type": "org.test.parts.App"}}])
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(path, PrepareOptions(libs=(package,)), dry_run=True)
    assert result.status == "ok", result.error
    # outputs are named after the application's class when it has no name
    parts = result.outputs["App.parts"]
    assert len(parts) == 2 and all(isinstance(p, str) for p in parts)
    assert result.outputs["App.byName"] == {"first": parts[0], "sizes": [1, 2]}
    assert result.outputs["App.kind"] == "org.test.parts.App"
    assert json.loads(json.dumps(result.to_json()))["outputs"]["App.parts"] == parts


def test_an_application_without_a_name_property_is_called_by_its_header_name(
        tmp_path: Path) -> None:
    # Murano's dashboard names applications in the object header (`?: {name: ...}`);
    # murano-apps' classes mostly declare no `name` property
    package = tmp_path / "parts"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Application\nFullName: org.test.parts.App\nName: Parts\n"
        "Classes:\n  org.test.parts.App: App.yaml\n  org.test.parts.Part: App.yaml\n")
    (package / "Classes" / "App.yaml").write_text(PARTS_APP)
    path = write(tmp_path / "m.json", [{"?": {"id": "a1", "type": "org.test.parts.App",
                                              "name": "my-parts"}}])
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(path, PrepareOptions(libs=(package,)), dry_run=True)
    assert result.status == "ok", result.error
    assert result.components["a1"].name == "my-parts"
    assert result.outputs["my-parts.kind"] == "org.test.parts.App"


def test_a_model_file_that_does_not_parse_is_rejected_at_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "bad.yaml"
    broken.write_text("applications:\n  - ?: {type: x\n")
    assert models.recognises(broken)
    with pytest.raises(Rejected) as caught:
        models.read_model(broken)
    assert caught.value.kind == "model_invalid"
    assert caught.value.message.startswith(f"{broken}: not valid YAML: ")
    assert "line 3, column 1" in caught.value.message


def _parts_package(tmp_path: Path) -> Path:
    package = tmp_path / "parts"
    (package / "Classes").mkdir(parents=True, exist_ok=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Application\nFullName: org.test.parts.App\nName: Parts\n"
        "Classes:\n  org.test.parts.App: App.yaml\n  org.test.parts.Part: App.yaml\n")
    (package / "Classes" / "App.yaml").write_text(PARTS_APP)
    return package


def _recording_resources(state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
    """A recording cloud for real runs too: what is deployed stays in the store."""
    return host_resources(state_dir, environment_id, True)


def test_a_first_deploy_runs_the_objects_prepare_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[object] = []
    load_model = Executor.load_model

    def counted(self: Executor, data: dict[str, t.Any]) -> t.Any:
        loads.append(data["Objects"]["?"]["id"])
        return load_model(self, data)

    monkeypatch.setattr(Executor, "load_model", counted)
    package = _parts_package(tmp_path)
    path = write(tmp_path / "m.json", [{"?": {"id": "a1", "type": "org.test.parts.App"}}])
    service = Service(Workdir(tmp_path), FrontendRegistry([MuranoPlFrontend()]),
                      resources=_recording_resources)
    first = service.deploy(path, PrepareOptions(libs=(package,), name="shop"))
    assert first.status == "ok", first.error
    assert first.model is not None
    environment_id = first.model["Objects"]["?"]["id"]
    # prepare loaded the model as the new environment, and the run used that
    assert loads == [environment_id]
    assert len(environment_id) == 32 and environment_id != models.WRAPPED_ID
    assert first.model["Objects"]["name"] == "shop"
    assert first.outputs["App.kind"] == "org.test.parts.App"
    assert first.components["a1"].state == "deployed"

    # a redeploy loads the new model against the stored one: prepare's objects
    # (loaded with another new id) are not used
    second = service.deploy(path, PrepareOptions(libs=(package,), name="shop"))
    assert second.status == "ok", second.error
    assert second.model is not None
    assert second.model["Objects"]["?"]["id"] == environment_id
    assert len(loads) == 3 and loads[2] == environment_id != loads[1]
    assert second.outputs["App.kind"] == "org.test.parts.App"
    assert second.components["a1"].state == "deployed"


def test_prepare_objects_serve_one_run_of_the_environment_they_were_loaded_for(
        tmp_path: Path) -> None:
    package = _parts_package(tmp_path)
    path = write(tmp_path / "m.json", [{"?": {"id": "a1", "type": "org.test.parts.App"}}])
    frontend = MuranoPlFrontend()

    def trial() -> TrialLoad:
        blueprint = frontend.prepare(path, PrepareOptions(libs=(package,), name="shop"))
        assert isinstance(blueprint.payload, Prepared)
        assert blueprint.payload.trial is not None
        assert blueprint.payload.trial.environment_id == blueprint.environment_id
        return blueprint.payload.trial

    loaded = trial()
    new = StoredState(environment_id=loaded.environment_id, name="shop", project="p")
    assert loaded.take(dataclasses.replace(new, environment_id="another")) is None
    assert loaded.take(new) is None          # once only, whatever the first answer was
    loaded = trial()
    assert loaded.take(dataclasses.replace(new, environment_id=loaded.environment_id,
                                           model={"Objects": None})) is None
    loaded = trial()
    assert loaded.take(dataclasses.replace(new, environment_id=loaded.environment_id,
                                           name="other")) is None
    loaded = trial()
    root = loaded.take(dataclasses.replace(new, environment_id=loaded.environment_id))
    assert root is not None and root.id == loaded.environment_id
    assert root.values["name"] == "shop"
    assert loaded.take(dataclasses.replace(new, environment_id=loaded.environment_id)) is None


# -- issue 23: versions as murano-apps write them; wait conditions -----------------------
def _package(folder: Path, name: str, version: str | None, classes: dict[str, str],
             require: dict[str, str | None] | None = None) -> Path:
    (folder / "Classes").mkdir(parents=True)
    lines = ["Format: 1.3", "Type: Application", f"FullName: {name}", f"Name: {name}"]
    lines += [f"Version: {version}"] if version else []
    lines += ["Classes:", *(f"  {c}: {c.rsplit('.', 1)[1]}.yaml" for c in classes)]
    if require:
        lines += ["Require:", *(f"  {p}:{' ' + v if v else ''}" for p, v in require.items())]
    (folder / "manifest.yaml").write_text("\n".join(lines) + "\n")
    for class_name, body in classes.items():
        (folder / "Classes" / f"{class_name.rsplit('.', 1)[1]}.yaml").write_text(body)
    return folder


WEB = """\
Namespaces: {=: org.test.web, std: io.murano}
Name: Server
Extends: std:Application
Properties:
  %s
Methods:
  deploy:
    Body:
"""
WEB_ZERO = WEB % "port: {Contract: $.int().notNull()}"
WEB_ONE = WEB % "address: {Contract: $.string().notNull()}"   # 1.0 broke the 0.x shape
SITE = """\
Namespaces: {=: org.test.site, std: io.murano, web: org.test.web}
Name: Site
Extends: std:Application
Properties:
  server: {Contract: $.class(web:Server).notNull()}
  serverPort: {Contract: $.int(), Usage: Out}
Methods:
  deploy:
    Body:
      - $.serverPort: $.server.port
"""


def test_an_empty_require_takes_the_0x_the_application_was_written_for(tmp_path: Path) -> None:
    # murano-apps' WordPress and SugarCRM: every Require empty, ApacheHttpServer
    # offered in 0.0.0 and in an incompatible 1.0.0; with "the latest" the model
    # was refused with a contract violation, with 0.x (the spec's "0") it deploys
    libs = (_package(tmp_path / "web0", "org.test.web", None, {"org.test.web.Server": WEB_ZERO}),
            _package(tmp_path / "web1", "org.test.web", "1.0.0",
                     {"org.test.web.Server": WEB_ONE}),
            _package(tmp_path / "site", "org.test.site", None,
                     {"org.test.site.Site": SITE}, {"org.test.web": None}))
    path = write(tmp_path / "m.json", [{"?": {"id": "s1", "type": "org.test.site.Site"},
                                        "server": {"?": {"id": "w1",
                                                         "type": "org.test.web.Server"},
                                                   "port": 80}}])
    service = Service(Workdir(tmp_path / "work"), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(path, PrepareOptions(libs=libs), dry_run=True)
    assert result.status == "ok", result.error
    assert result.outputs["Site.serverPort"] == 80


WAITING = """\
Namespaces: {=: org.test.wait, std: io.murano}
Name: App
Extends: std:Application
Properties:
  signalUrl: {Contract: $.string(), Usage: Out}
  received: {Contract: $.string(), Usage: Out}
Methods:
  deploy:
    Body:
      - $stack: $.find(std:Environment).require().stack
      - $stack.updateTemplate({resources => {
          wait_handle => {type => 'OS::Heat::WaitConditionHandle'},
          wait_condition => {type => 'OS::Heat::WaitCondition', properties => {
            handle => {get_resource => wait_handle}, count => 1, timeout => 600}}},
          outputs => {
            url => {value => {get_attr => [wait_handle, endpoint]}},
            data => {value => {get_attr => [wait_condition, data]}}}})
      - $stack.push()
      - $.signalUrl: $stack.output().url
      - $.received: $stack.output().data
"""


def test_a_dry_run_meets_wait_conditions_at_once(tmp_path: Path) -> None:
    # PivotalOperationsManager's template: a handle and a condition on it
    package = _package(tmp_path / "wait", "org.test.wait", None, {"org.test.wait.App": WAITING})
    path = write(tmp_path / "m.json", [{"?": {"id": "a1", "type": "org.test.wait.App"}}])
    service = Service(Workdir(tmp_path / "work"), FrontendRegistry([MuranoPlFrontend()]),
                      resources=host_resources)
    result = service.deploy(path, PrepareOptions(libs=(package,)), dry_run=True)
    assert result.status == "ok", result.error
    assert result.outputs["App.signalUrl"].startswith("http://signals.dry-run.invalid/signal/")
    assert result.outputs["App.received"] == '{"1": null}'


# -- what murano-apps on real hosts showed: messages a user can read -------------------


def test_a_failed_plan_named_by_its_whole_script_shows_its_first_line() -> None:
    from laguna.corelib.agent import AgentException
    from laguna.frontends.muranopl.errors import kind_and_message
    script = "#!/bin/bash\n#  Licensed under the Apache License\nsudo apt-get -y install x\n"
    error = AgentException({"message": "Script runCommand returned error code"}, "q1",
                           "Execute " + script)
    kind, message, details = kind_and_message(error, {"q1": "host0002"})
    assert (kind, message) == ("script_failed", "the agent reported a failure on host0002 "
                               "(plan 'Execute #!/bin/bash…'): Script runCommand returned "
                               "error code")
    error = AgentException({"message": "failed"}, "q1", None)
    assert kind_and_message(error, {"q1": "host0002"})[1] == (
        "the agent reported a failure on host0002: failed")


def test_a_class_load_error_is_located_once_without_its_code_in_the_message() -> None:
    from laguna.frontends.muranopl.errors import kind_and_message
    from laguna.lang.errors import ClassLoadError
    from laguna.source import Span
    error = ClassLoadError("class a.B is declared in the manifest but Classes/B.yaml does "
                           "not define it", Span("Classes/B.yaml", 1, 1), code="LAG-E0241")
    kind, message, _ = kind_and_message(error)
    assert (kind, message) == ("model_invalid", "Classes/B.yaml:1:1: class a.B is declared "
                               "in the manifest but Classes/B.yaml does not define it")


def test_an_agent_failure_tells_muranopl_code_the_scripts_exit_code_and_stderr() -> None:
    # io.murano.applications reports `$e.message`: "Unable to install X on Y due to ..."
    from laguna.corelib.agent import AgentException
    failed = AgentException({"message": "Script runCommand returned error code",
                             "details": {"exitCode": 100, "stdout": "Reading package lists",
                                         "stderr": "E: Package 'php5' has no installation "
                                                   "candidate\n"}}, "q1", "Execute x")
    assert str(failed) == ("Script runCommand returned error code (exit code 100): "
                           "E: Package 'php5' has no installation candidate")
    assert str(AgentException({"message": "refused"})) == "refused"
