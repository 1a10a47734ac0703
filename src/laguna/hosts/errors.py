"""Errors of the host layer (codes in docs/ERRORS.md).

::

    LagunaError
     +-- CloudError                (laguna.cloud.errors)
          +-- CloudUnavailable     (LAG-E1230) no driver for the cloud kind asked for
          +-- CloudSwitchRefused   (LAG-E1231) the environment's stacks are on another cloud
          +-- HostUnavailable      (LAG-E1232) a host's agent cannot be reached
          +-- ScriptError          (LAG-E1233) the agent failed a plan (not the script's
                                   exit status: that is the ScriptResult's)
"""

from __future__ import annotations

from laguna.cloud.errors import CloudError


class CloudUnavailable(CloudError):
    """The cloud kind is unknown, or its driver module is not installed here."""

    code = "LAG-E1230"


class CloudSwitchRefused(CloudError):
    """An environment whose stacks live on one cloud was asked to use another."""

    code = "LAG-E1231"


class HostUnavailable(CloudError):
    """A host has no agent to take plans (not running, or not reachable)."""

    code = "LAG-E1232"


class ScriptError(CloudError):
    """The agent of a host refused or failed the plan of a script or a file."""

    code = "LAG-E1233"
