"""The deployment layer: one store, one engine, one CLI shape for every blueprint language.

It knows nothing of MuranoPL (nor TOSCA, nor descriptors): a blueprint
language plugs in as a :class:`~laguna.deploy.frontend.Frontend`.

The names below are imported when first used (PEP 562): ``laguna status`` and
``laguna environments`` load :mod:`laguna.deploy.result` and
:mod:`laguna.deploy.readonly` without the service and SQLAlchemy.
"""

from __future__ import annotations

import typing as t

from laguna import lazy

if t.TYPE_CHECKING:
    from laguna.deploy.context import Reporter, RunContext, StoredPackage, StoredState
    from laguna.deploy.errors import DeployError, Rejected
    from laguna.deploy.frontend import (
        Blueprint,
        Frontend,
        FrontendRegistry,
        Outcome,
        PrepareOptions,
        default_registry,
    )
    from laguna.deploy.result import Component, ErrorInfo, Report, Result
    from laguna.deploy.service import Service
    from laguna.deploy.workdir import Workdir, resolve_workdir

#: each public name and the module that defines it
_HOMES = {
    "Blueprint": "laguna.deploy.frontend",
    "Component": "laguna.deploy.result",
    "DeployError": "laguna.deploy.errors",
    "ErrorInfo": "laguna.deploy.result",
    "Frontend": "laguna.deploy.frontend",
    "FrontendRegistry": "laguna.deploy.frontend",
    "Outcome": "laguna.deploy.frontend",
    "PrepareOptions": "laguna.deploy.frontend",
    "Rejected": "laguna.deploy.errors",
    "Report": "laguna.deploy.result",
    "Reporter": "laguna.deploy.context",
    "Result": "laguna.deploy.result",
    "RunContext": "laguna.deploy.context",
    "Service": "laguna.deploy.service",
    "StoredPackage": "laguna.deploy.context",
    "StoredState": "laguna.deploy.context",
    "Workdir": "laguna.deploy.workdir",
    "default_registry": "laguna.deploy.frontend",
    "resolve_workdir": "laguna.deploy.workdir",
}

__all__ = [
    "Blueprint",
    "Component",
    "DeployError",
    "ErrorInfo",
    "Frontend",
    "FrontendRegistry",
    "Outcome",
    "PrepareOptions",
    "Rejected",
    "Report",
    "Reporter",
    "Result",
    "RunContext",
    "Service",
    "StoredPackage",
    "StoredState",
    "Workdir",
    "default_registry",
    "resolve_workdir",
]


def __getattr__(name: str) -> t.Any:
    return lazy.attribute(globals(), _HOMES, name)
