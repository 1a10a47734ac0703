"""A fake blueprint language for the deployment layer's tests.

A blueprint is a JSON file ending in ``.fake``::

    {"name": "shop",                              # optional environment name
     "components": [{"id": "web1", "type": "Web", "name": "web"}, ...],
     "reject": {"kind": "class_not_found", "message": "..."},   # refused in prepare
     "fail": {"at": "web1", "kind": "script_failed", "message": "..."},
     "block": "/path/of/a/file"}                  # waits for it after the first report

Deploying reports ``deploying NAME`` / ``NAME deployed`` for each new
component, ``destroying NAME`` for each removed one, and leaves unchanged ones
alone: the redeploy difference a real front end applies.
"""

from __future__ import annotations

import datetime
import json
import time
import typing as t
import typing as t
from pathlib import Path

from laguna.deploy.context import RunContext, StoredPackage
from laguna.deploy.errors import Rejected
from laguna.deploy.frontend import Blueprint, FrontendRegistry, Outcome, PrepareOptions
from laguna.deploy.result import Component, ErrorInfo

PACKAGE = StoredPackage("com.example.Fake", "1.0.0", b"PK-fake-archive")


class FakeFrontend:
    language = "fake"

    def __init__(self) -> None:
        self.calls: list[str] = []
        #: each deploy's RunContext.repair
        self.repairs: list[frozenset[str]] = []

    def recognises(self, path: Path) -> bool:
        return path.suffix == ".fake"

    def prepare(self, path: Path, options: PrepareOptions) -> Blueprint:
        return self._blueprint(json.loads(path.read_text()), str(path), options)

    def prepare_data(self, data: t.Mapping[str, t.Any], options: PrepareOptions) -> Blueprint:
        return self._blueprint(data, "<data>", options)

    def _blueprint(self, data: t.Mapping[str, t.Any], source: str,
                   options: PrepareOptions) -> Blueprint:
        if "reject" in data:
            raise Rejected(data["reject"]["kind"], data["reject"]["message"])
        model = {"components": data.get("components", []), "settings": dict(options.settings)}
        return Blueprint(language=self.language, source=source, model=model,
                         packages=(PACKAGE,), name=data.get("name"), payload=data)

    def deploy(self, blueprint: Blueprint, context: RunContext) -> Outcome:
        self.calls.append("deploy")
        self.repairs.append(context.repair)
        data = t.cast(dict[str, t.Any], blueprint.payload)
        old = {c["id"]: c for c in (context.stored.model or {}).get("components", [])}
        new = {c["id"]: c for c in data.get("components", [])}
        report = context.reporter
        plan: list[dict[str, t.Any]] = []
        for key in old.keys() - new.keys():
            report.report("info", f"destroying {old[key]['name']}", key)
        deployed = {k: c for k, c in old.items() if k in new}
        for key, comp in new.items():
            if key in old:
                continue
            report.component(key, comp["type"], comp["name"], "deploying")
            report.report("info", f"deploying {comp['name']}", key)
            plan.append({"kind": "stack", "template": {"resources": {key: comp["type"]}}})
            plan.append({"kind": "agent", "host": comp["name"], "plan": {"Body": "deploy"}})
            if "block" in data:
                _wait_for(Path(data["block"]))
            failure = data.get("fail")
            if failure is not None and failure["at"] == key:
                report.report("error", failure["message"], key)
                report.component(key, comp["type"], comp["name"], "failed")
                return Outcome(ok=False, model={"components": list(deployed.values())},
                               error=ErrorInfo(failure["kind"], failure["message"], {
                                   "object": key, "method": "deploy",
                                   "trace": f"{comp['type']}::deploy @ fake:1",
                                   "output": "exit 1"}), plan=plan)
            deployed[key] = comp
            report.component(key, comp["type"], comp["name"], "deployed")
            report.report("info", f"{comp['name']} deployed", key)
        components = {k: Component(c["type"], c["name"], "deployed") for k, c in deployed.items()}
        return Outcome(ok=True, model={"components": list(deployed.values())},
                       outputs={"count": len(deployed)}, components=components, plan=plan)

    def action(self, context: RunContext, object_id: str, method: str,
               arguments: t.Mapping[str, str]) -> Outcome:
        self.calls.append(f"action {object_id}.{method}")
        ids = [c["id"] for c in (context.stored.model or {}).get("components", [])]
        if object_id not in ids:
            raise Rejected("model_invalid", f"no object {object_id} in the model")
        context.reporter.report("info", f"{method} ran", object_id)
        return Outcome(ok=True, outputs={"method": method, **arguments})

    def undeploy(self, context: RunContext) -> Outcome:
        self.calls.append("undeploy")
        for comp in (context.stored.model or {}).get("components", []):
            context.reporter.report("info", f"destroying {comp['name']}", comp["id"])
        return Outcome(ok=True, model=None, components={})


def _wait_for(path: Path, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


def registry() -> FrontendRegistry:
    return FrontendRegistry([FakeFrontend()])


class Ticker:
    """A clock that moves one second per reading, from 2026-01-01 00:00:00 UTC."""

    def __init__(self) -> None:
        self.now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)

    def __call__(self) -> datetime.datetime:
        self.now += datetime.timedelta(seconds=1)
        return self.now


def write_blueprint(folder: Path, stem: str, **data: t.Any) -> Path:
    path = folder / f"{stem}.fake"
    path.write_text(json.dumps(data))
    return path


WEB = {"id": "web1", "type": "Web", "name": "web"}
DB = {"id": "db1", "type": "Db", "name": "db"}

#: ``deploy --json`` of a first deploy of [WEB] as "shop", with a fresh Ticker
WEB_DEPLOYED = {
    "name": "shop",
    "language": "fake",
    "status": "ok",
    "state": "ready",
    "outputs": {"count": 1},
    "components": {"web1": {"type": "Web", "name": "web", "state": "deployed"}},
    "reports": [
        {"level": "info", "text": "deploying web", "time": "2026-01-01T00:00:03.000000Z",
         "object": "web1"},
        {"level": "info", "text": "web deployed", "time": "2026-01-01T00:00:04.000000Z",
         "object": "web1"},
    ],
    "model": {"components": [WEB]},
    "error": None,
}
