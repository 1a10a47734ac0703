"""The restricted Body evaluator: the Body forms murano-apps used, and what is refused."""

from __future__ import annotations

from typing import Any

import pytest

from laguna.agent.body import Body, ScriptFunction
from laguna.agent.errors import PlanError, PlanFailed, ScriptFailed


class Calls:
    """Scripts that record (name, commandline, input) and answer a fixed result."""

    def __init__(self, *names: str, exit_code: int = 0) -> None:
        self.log: list[tuple[str, str, str | None]] = []
        self.functions = {name: self._function(name, exit_code) for name in names}

    def _function(self, name: str, exit_code: int) -> ScriptFunction:
        def run(commandline: str, stdin: str | None) -> dict[str, Any]:
            self.log.append((name, commandline, stdin))
            return {"exitCode": exit_code, "stdout": f"out of {name}", "stderr": None}
        return ScriptFunction(name, run)


def run(source: str, calls: Calls, **args: Any) -> Any:
    return Body.compile(source).run(calls.functions, args)


def test_return_of_a_script_result_key() -> None:
    calls = Calls("deploy")
    assert run("return deploy(args.appName).stdout", calls, appName="tomcat") == "out of deploy"
    assert calls.log == [("deploy", "tomcat", None)]


def test_whole_script_result_and_no_arguments() -> None:
    calls = Calls("runCommand")
    assert run("return runCommand()", calls) == {
        "exitCode": 0, "stdout": "out of runCommand", "stderr": None}
    assert calls.log == [("runCommand", "", None)]


def test_put_file_body_of_io_murano() -> None:
    calls = Calls("putFile")
    assert run("""return putFile("'{0}'".format(args.path)).exitCode == 0""", calls,
               path="/etc/motd") is True
    assert calls.log == [("putFile", "'/etc/motd'", None)]


def test_indented_multi_line_body_with_if_and_input() -> None:
    source = """
        setup('{0} {1}'.format(args.host, args.port), input='yes')
        if args.withData:
            result = withData()
        else:
            result = withoutData()
        return [result.stdout, f"{args.port:>5}"]
    """
    calls = Calls("setup", "withData", "withoutData")
    assert run(source, calls, host="db", port=5432, withData=False) == [
        "out of withoutData", " 5432"]
    assert calls.log == [("setup", "db 5432", "yes"), ("withoutData", "", None)]


def test_percent_formatting_of_plain_text() -> None:
    assert run("return 'port 12345: %s/%d' % (args.a, 7)", Calls(), a="tcp") == (
        "port 12345: tcp/7")


def test_empty_return_is_none() -> None:
    assert run("return", Calls()) is None


def test_format_reads_dict_keys_as_attributes() -> None:
    assert run("return '{0.stdout}!'.format(deploy())", Calls("deploy")) == "out of deploy!"


def test_script_failure_passes_through_untouched() -> None:
    failure = ScriptFailed("Script deploy returned error code", 100, {"exitCode": 1})

    def fail(commandline: str, stdin: str | None) -> dict[str, Any]:
        raise failure

    with pytest.raises(ScriptFailed) as info:
        Body.compile("x = 1\nreturn deploy()").run({"deploy": ScriptFunction("deploy", fail)}, {})
    assert info.value is failure


@pytest.mark.parametrize(("source", "message"), [
    ("return args.missing", "Body line 1: 'missing' is not a key of the mapping with keys 'a'"),
    ("x = 1\nreturn nothing()", "Body line 2: name 'nothing' is not defined (scripts of the "
     "plan: deploy)"),
    ("return '{0.__class__}'.format(1)", "Body line 1: attribute '__class__' is not allowed"),
    ("return 1 / 0", "Body line 1: ZeroDivisionError: division by zero"),
    ("return 'ab' * 600000", "Body line 1: a value of the Body grew over 1000000 items"),
    ("return '{:99999}'.format(1)", "Body line 1: format width in '99999' is too large"),
    ("return args.a.upper", "Body line 1: str value has no attribute 'upper'"),
    ("x = 'a' * 900000\nreturn x.replace('a', 'bb')",
     "Body line 2: a value of the Body grew over 1000000 items"),
    ("x = 'a' * 900000\nreturn '{0}{0}'.format(x)",
     "Body line 2: a value of the Body grew over 1000000 items"),
    ("x = 99999999999999999999\n" + "x = x * x\n" * 12,
     "Body line 11: a number of the Body grew over 64000 bits"),
    ("return '%99999s' % 1", "Body line 1: %-formatting takes a tuple or a value, without "
     "`*` or widths over 9999; use format()"),
])
def test_runtime_errors_name_the_body_line(source: str, message: str) -> None:
    with pytest.raises(PlanFailed) as info:
        run(source, Calls("deploy"), a="x")
    assert (info.value.message, info.value.error_code) == (message, 1)


@pytest.mark.parametrize(("source", "message"), [
    ("import os", "Body line 1: Import statements are not supported (laguna runs a restricted "
     "Body, see docs/AGENT.md)"),
    ("x = 1\nwhile True:\n  pass", "Body line 2: While statements are not supported (laguna "
     "runs a restricted Body, see docs/AGENT.md)"),
    ("return [x for x in args]", "Body line 1: ListComp is not supported (laguna runs a "
     "restricted Body, see docs/AGENT.md)"),
    ("return (lambda: 1)()", "Body line 1: Lambda is not supported (laguna runs a restricted "
     "Body, see docs/AGENT.md)"),
    ("return 2 ** 3", "Body line 1: operator Pow is not supported"),
    ("return args.__class__", "Body line 1: name '__class__' is not allowed"),
    ("return __import__('os')", "Body line 1: name '__import__' is not allowed"),
    ("a, b = 1, 2", "Body line 1: only assignments to one name are supported"),
    ("return (", "Body line 1: invalid syntax ('(' was never closed)"),
])
def test_unsupported_python_is_refused_before_anything_runs(source: str, message: str) -> None:
    with pytest.raises(PlanError) as info:
        Body.compile(source)
    assert (info.value.message, info.value.error_code) == (message, 2)
