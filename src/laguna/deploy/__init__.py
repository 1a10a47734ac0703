"""The deployment layer: one store, one engine, one CLI shape for every blueprint language.

It knows nothing of MuranoPL (nor TOSCA, nor descriptors): a blueprint
language plugs in as a :class:`~laguna.deploy.frontend.Frontend`.
"""

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
