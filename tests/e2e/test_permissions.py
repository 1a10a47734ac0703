"""A deployed working directory is its owner's alone: every file and folder
that the command, the cloud, the agents and their scripts made, whatever
umask the user started `laguna` with."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from laguna.cloud.local.driver import LocalCloud

from .helpers import EXAMPLES, laguna

WEB_MODEL = EXAMPLES / "webserver" / "web.yaml"


def modes(top: Path) -> dict[str, int]:
    """Every path below ``top`` (``top`` excluded) and its permission bits;
    symbolic links (the plans' ``<script>/<Name>`` links to their bodies,
    volumes' mount points) have no permissions of their own and are left out."""
    found = {}
    for folder, folders, files in os.walk(top):
        for name in [*folders, *files]:
            path = Path(folder, name)
            if not path.is_symlink():
                found[str(path.relative_to(top))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def normalised(path: str) -> str:
    """``path`` with the environment's stack, the plan's and the files' ids named."""
    path = re.sub(r"murano-[0-9a-f]{32}", "<stack>", path)
    path = re.sub(r"plans/[0-9a-f]{32}", "plans/<plan>", path)
    return re.sub(r"files/[0-9a-f]{32}", "files/<file>", path)


def test_a_deployed_working_directory_is_private(workdir: Path) -> None:
    old = os.umask(0o022)           # a usual user's umask: the command must not rely on it
    try:
        code, result = laguna(workdir, "deploy", str(WEB_MODEL),
                              "-l", str(EXAMPLES / "webserver"))
    finally:
        os.umask(old)
    assert (code, result["status"]) == (0, "ok"), result["error"]
    found = modes(workdir)
    # where issue 21 found 0644 and 0755: all of it is here to be looked at
    host, run = ".laguna/cloud/hosts/<stack>/web-1", ".laguna/cloud/run/<stack>/web-1"
    assert {normalised(path) for path in found} >= {
        ".laguna", ".laguna/laguna.sqlite", ".laguna/cloud/stacks/<stack>.json",
        f"{run}/agent.key", f"{run}/agent.log", f"{run}/ready.json",
        f"{host}/agent/plans/<plan>/result.json", f"{host}/agent/plans/<plan>/files/<file>",
        f"{host}/agent/plans/<plan>/logs/002-deploy.stdout", f"{host}/www/index.html",
        f"{host}/www.log"}
    # Folders 0700, files 0600, but for one exception: a script's entry
    # point, which the agent makes executable (0500) to run it, as
    # murano-agent did; no one else's either.
    loose = {}
    for path, mode in found.items():
        if (workdir / path).is_dir():
            expected = {0o700}
        elif re.fullmatch(r".*/agent/plans/[0-9a-f]{32}/files/[0-9a-f]{32}", path):
            expected = {0o600, 0o500}
        else:
            expected = {0o600}
        if mode not in expected:
            loose[path] = oct(mode)
    assert loose == {}
    assert sorted(mode for path, mode in found.items() if "/files/" in path) == [
        0o500, 0o500, 0o600]    # two scripts' entry points, one file they use

    cloud = LocalCloud(workdir / ".laguna" / "cloud")
    entries = [p for p in cloud.registry.iterdir() if not p.name.startswith(".")
               and json.loads(p.read_text()).get("owner") == str(cloud.directory)]
    assert [stat.S_IMODE(p.stat().st_mode) for p in [cloud.registry, *entries]] == [
        0o700, 0o600]

    code, result = laguna(workdir, "undeploy", "web")
    assert (code, result["status"]) == (0, "ok")
