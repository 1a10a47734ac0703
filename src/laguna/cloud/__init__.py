"""Clouds that realise HOT stacks: the interface, the local cloud, dry runs.

This package knows nothing of MuranoPL, so that every front end can use it.
"""

from laguna.cloud.base import Cloud, Host, StackResult
from laguna.cloud.errors import (CloudError, HostError, IsolationError, StackNotFound,
                                 TemplateError)
from laguna.cloud.factory import open_cloud
from laguna.cloud.recording import RecordingCloud

__all__ = ["Cloud", "CloudError", "Host", "HostError", "IsolationError",
           "RecordingCloud", "StackNotFound", "StackResult", "TemplateError", "open_cloud"]
