"""The installed package, not the source tree: CI's smoke test of the wheel.

Builds laguna's wheel, installs it non-editable with the locked runtime
dependencies into a fresh virtualenv, and from outside the source tree runs
what a new user runs: README's first command (which installs from the tree
again, as the user does), `laguna validate` and `laguna deploy` of the TOSCA
template and the assembly descriptor of examples/, and `laguna serve` answering
`GET /`. Everything it starts is undeployed or stopped before it ends.

    python3 .ci/wheel_smoke.py

Only the standard library: it runs before the suite, with the project's
Python, and drives the virtualenv's programs as subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP_SECONDS = 600


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="laguna-wheel-smoke-"))
    try:
        run_smoke(scratch)
    except SmokeFailure as failure:
        print(f"wheel smoke test: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("wheel smoke test: ok")
    return 0


class SmokeFailure(Exception):
    pass


def run_smoke(scratch: Path) -> None:
    dist = scratch / "dist"
    step("build the wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps",
                             "--no-build-isolation", "--quiet", "-w", str(dist), str(ROOT)],
         cwd=scratch)
    (wheel,) = dist.glob("laguna-*.whl")

    venv = scratch / "venv"
    step("make a virtualenv", [sys.executable, "-m", "venv", str(venv)], cwd=scratch)
    python = str(venv / "bin" / "python3")
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}",
           "VIRTUAL_ENV": str(venv), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    step("install the locked runtime dependencies",
         [python, "-m", "pip", "install", "--quiet", "-r", str(ROOT / "requirements" / "runtime.txt")],
         cwd=scratch, env=env)
    step("install the wheel", [python, "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
         cwd=scratch, env=env)
    where = step("import laguna from the virtualenv",
                 [python, "-c", "import laguna; print(laguna.__file__)"], cwd=scratch, env=env)
    if not where.strip().startswith(str(venv)):
        raise SmokeFailure(f"laguna was imported from {where.strip()}, not the virtualenv")

    # README's first command, as written, in the virtualenv; from the checkout,
    # since it names `.` and examples/ (the `laguna` program still imports the
    # installed package: a console script does not put its cwd on sys.path)
    workdir = scratch / "readme"
    workdir.mkdir()
    first = readme_first_command()
    output = step("README's first command", ["bash", "-c", first], cwd=ROOT,
                  env={**env, "LAGUNA_WORKDIR": str(workdir)})
    url = last_output_url(output, "web.url")
    expect_page(url, "Hello from laguna")
    step("undeploy the README's web server", ["laguna", "undeploy", "webserver"], cwd=workdir,
         env=env)

    # the other two languages, from a copy of examples/ outside the tree
    examples = scratch / "examples"
    shutil.copytree(ROOT / "examples", examples)
    work = scratch / "work"
    work.mkdir()
    tosca = str(examples / "tosca" / "service.yaml")
    step("validate the TOSCA example", ["laguna", "validate", tosca], cwd=work, env=env)
    data = deploy_json(["laguna", "deploy", tosca, "--name", "hello-tosca", "--cloud", "local",
                        "--json"], work, env)
    expect_page(data["outputs"]["url"], "Hello from TOSCA")
    step("undeploy the TOSCA example", ["laguna", "undeploy", "hello-tosca"], cwd=work, env=env)

    site = str(examples / "assembly" / "site.yaml")
    catalog = ["-l", str(examples / "assembly")]
    step("validate the assembly example", ["laguna", "validate", site, *catalog], cwd=work, env=env)
    data = deploy_json(["laguna", "deploy", site, "--name", "site", *catalog, "--json"], work, env)
    expect_page(data["outputs"]["entry"], "front page")
    step("delete the assembly example", ["laguna", "intent", "site", "delete"], cwd=work, env=env)

    serve(work, env)


def readme_first_command() -> str:
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index("## Set up on a fresh machine")
    for line in lines[start:]:
        if line.startswith("    "):
            return line.strip()
    raise SmokeFailure("README.md has no command under 'Set up on a fresh machine'")


def step(what: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    print(f"wheel smoke test: {what}", flush=True)
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=STEP_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise SmokeFailure(f"{what}: no end within {STEP_SECONDS} s") from exc
    if done.returncode != 0:
        raise SmokeFailure(f"{what}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def deploy_json(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, object]:
    output = step(" ".join(argv[:3]), argv, cwd, env)
    data = json.loads(output)
    if data.get("status") != "ok":
        raise SmokeFailure(f"{' '.join(argv)}: {output}")
    return data  # type: ignore[no-any-return]


def last_output_url(output: str, name: str) -> str:
    prefix = f"output {name}: "
    for line in reversed(output.splitlines()):
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    raise SmokeFailure(f"no '{prefix}' line in:\n{output}")


def expect_page(url: object, text: str) -> None:
    deadline = time.monotonic() + 30
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(str(url), timeout=5) as answer:
                last = answer.read().decode()
            if text in last:
                return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.2)
    raise SmokeFailure(f"{url} does not show {text!r}: {last}")


def serve(work: Path, env: dict[str, str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    print("wheel smoke test: laguna serve answers GET /", flush=True)
    server = subprocess.Popen(["laguna", "serve", "--port", str(port)], cwd=work, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    body = json.loads(answer.read())
                break
            except urllib.error.HTTPError as answer:  # the versions come as 300 Multiple Choices
                body = json.loads(answer.read())
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SmokeFailure(f"laguna serve did not answer: {server.stderr.read()}"
                                       if server.poll() is not None
                                       else "laguna serve did not answer within 60 s") from None
                time.sleep(0.2)
        versions = [version.get("id") for version in body.get("versions", [])]
        if versions != ["v1.0"]:
            raise SmokeFailure(f"GET / answered {body}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
