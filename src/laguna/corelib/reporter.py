"""io.murano.system.StatusReporter and io.murano.system.InstanceNotifier.

Both are made with ``new(..., environment => <Environment or its id>)`` and
hand what they are told to the run's :class:`~laguna.corelib.services.DeploymentServices`:
a status report carries the reporting object's id (the environment's when
the object is null), its level (``info`` or ``error``) and text; the notifier
tracks applications and servers as the original's ``murano.track_instance``
and ``murano.untrack_instance`` notifications did.
"""

from __future__ import annotations

import typing as t

from laguna.corelib.binding import prop
from laguna.corelib.declare import REQUIRED, native
from laguna.corelib.services import services_of
from laguna.lang import dispatch
from laguna.lang.objects import MuranoObject
from laguna.lang.types import MuranoClass

REPORTER_CLASS = "io.murano.system.StatusReporter"
NOTIFIER_CLASS = "io.murano.system.InstanceNotifier"


def _environment_id(this: MuranoObject) -> str | None:
    environment = prop(this, "environment")
    if isinstance(environment, MuranoObject):
        return environment.id
    return None if environment is None else str(environment)


def _text(message: t.Any) -> str:
    """Apps sometimes report a result (a dict, a list) instead of a string."""
    value = dispatch.thaw(message)
    return value if isinstance(value, str) else str(value)


def bind_reporter(cls: MuranoClass) -> None:
    def reporter(level: str) -> t.Callable[..., None]:
        def report(executor: t.Any, this: MuranoObject, frame: t.Any, instance: t.Any,
                   msg: t.Any) -> None:
            object_id = (instance.id if isinstance(instance, MuranoObject)
                         else _environment_id(this))
            services_of(executor).report(object_id, level, _text(msg))
        return report

    args = [("instance", REQUIRED), ("msg", REQUIRED)]
    native(cls, "report", reporter("info"), args)
    native(cls, "report_error", reporter("error"), args)
    native(cls, "reportError", reporter("error"), args)


def bind_notifier(cls: MuranoClass) -> None:
    def notify(executor: t.Any, this: MuranoObject, event: str, instance: MuranoObject,
               instance_type: str, **extra: t.Any) -> None:
        data = {"instance": instance.id, "environment": _environment_id(this),
                "instance_type": instance_type, **extra}
        services_of(executor).notify(event, data)

    def track_application(executor: t.Any, this: MuranoObject, frame: t.Any,
                          instance: MuranoObject, title: t.Any = None,
                          unitCount: t.Any = None) -> None:  # noqa: N803 (MuranoPL name)
        notify(executor, this, "murano.track_instance", instance, "application",
               type_name=instance.type.name, type_title=title, unit_count=unitCount)

    def untrack_application(executor: t.Any, this: MuranoObject, frame: t.Any,
                            instance: MuranoObject) -> None:
        notify(executor, this, "murano.untrack_instance", instance, "application")

    def track_cloud_instance(executor: t.Any, this: MuranoObject, frame: t.Any,
                             instance: MuranoObject) -> None:
        notify(executor, this, "murano.track_instance", instance, "OS::Nova::Server",
               type_name=instance.type.name, type_title=None, unit_count=1)

    def untrack_cloud_instance(executor: t.Any, this: MuranoObject, frame: t.Any,
                               instance: MuranoObject) -> None:
        notify(executor, this, "murano.untrack_instance", instance, "OS::Nova::Server")

    native(cls, "trackApplication", track_application,
           [("instance", REQUIRED), ("title", None), ("unitCount", None)])
    native(cls, "untrackApplication", untrack_application, [("instance", REQUIRED)])
    native(cls, "trackCloudInstance", track_cloud_instance, [("instance", REQUIRED)])
    native(cls, "untrackCloudInstance", untrack_cloud_instance, [("instance", REQUIRED)])
