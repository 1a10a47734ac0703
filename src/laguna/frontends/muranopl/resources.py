"""The cloud and agents of a MuranoPL run (a :class:`~laguna.deploy.context.ResourcesFactory`).

A real run uses the local cloud whose state lives in the working directory's
``.laguna/cloud/`` (``state_dir``), with the isolation kept there, and an :class:`~laguna.agent.AgentClient`
per host; a dry run uses a :class:`~laguna.cloud.recording.RecordingCloud`
and a :class:`~laguna.agent.transport.RecordingAgent` per host, which start
and keep nothing.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.deploy.context import Resources


def real_agent(host: t.Any) -> t.Any:
    from laguna.agent.client import AgentClient
    if not host.agent_url or not host.agent_secret:
        from laguna.frontends.muranopl.services import AgentUnavailable
        raise AgentUnavailable(f"the agent of {host.server_name} is not running")
    return AgentClient(host.agent_url, host.agent_secret)


def recording_agent(host: t.Any) -> t.Any:
    from laguna.agent.transport import RecordingAgent
    return RecordingAgent(host.server_name)


def muranopl_resources(state_dir: Path, environment_id: str, dry_run: bool) -> Resources:
    if dry_run:
        from laguna.cloud.recording import RecordingCloud
        return Resources(cloud=RecordingCloud(), agents=recording_agent)
    from laguna.cloud.factory import local_cloud
    return Resources(cloud=local_cloud(state_dir), agents=real_agent)
