"""Typed progress events of an operation on an environment.

The service emits them in this order: one :class:`DeploymentStarted`, any
number of :class:`ReportEmitted` and :class:`ComponentChanged` (as the front
end produces them, each already committed to the store), one
:class:`DeploymentFinished`. The CLI's progress view consumes them; so will
the API's event stream and the dashboard.
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t

from laguna.deploy.result import Component, Report


@dataclasses.dataclass(frozen=True)
class DeploymentStarted:
    environment: str
    deployment_id: str
    operation: str
    time: datetime.datetime


@dataclasses.dataclass(frozen=True)
class ReportEmitted:
    environment: str
    report: Report
    #: the reporting object as a component (its name and type), when it is one
    #: the run announced or the environment had: views name it by that, not its id
    subject: Component | None = None


@dataclasses.dataclass(frozen=True)
class ComponentChanged:
    environment: str
    object_id: str
    component: Component


@dataclasses.dataclass(frozen=True)
class DeploymentFinished:
    environment: str
    deployment_id: str
    #: the deployment's state (``success`` or ``failure``)
    state: str
    time: datetime.datetime


Event = DeploymentStarted | ReportEmitted | ComponentChanged | DeploymentFinished

#: where events go; must not raise
EventSink = t.Callable[[Event], None]


def discard(event: Event) -> None:
    """The sink that ignores every event."""
