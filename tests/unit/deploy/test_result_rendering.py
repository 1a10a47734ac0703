"""How a result prints for people: no Python None, values as `outputs` prints them."""

from __future__ import annotations

import io

from rich.console import Console

from laguna.deploy.result import ErrorInfo, Result, shown


def rendered(result: Result) -> list[str]:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    with console.capture() as captured:
        console.print(result)
    return [line.rstrip() for line in captured.get().splitlines()]


def test_values_are_text_as_it_is_none_as_a_dash_and_the_rest_json() -> None:
    assert [shown(v) for v in ("http://x/", None, 8080, True, [1, None], {"a": None})] == [
        "http://x/", "-", "8080", "true", "[1, null]", '{"a": null}']


def test_status_prints_no_python_none() -> None:
    result = Result(name="shop", language="fake", status="failed", state="deploy failure",
                    outputs={"web.pid": None, "web.url": "http://x/", "web.ports": [80, 81]},
                    error=ErrorInfo("script_failed", "exit 1",
                                    {"object": "web1", "host": None,
                                     "output": {"exitCode": 1, "stdout": None}}))
    assert rendered(result) == [
        "environment shop: deploy failure (failed)",
        "output web.pid: -",
        "output web.url: http://x/",
        "output web.ports: [80, 81]",
        "error[LAG-E1011]: exit 1 [script_failed]",
        "object: web1",
        "host: -",
        'output: {"exitCode": 1, "stdout": null}',
    ]
