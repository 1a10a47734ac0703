"""Python classes bound to MuranoPL classes: instance, static, class and
extension methods, reachable by every call route MuranoPL has."""

from __future__ import annotations

import pathlib
import textwrap

import pytest

from laguna.lang.executor import Executor
from laguna.lang.native import extension, murano_name, python_binder
from laguna.testing.packages import core_registry, read_package_dir

CLASSES = """\
Namespaces:
  =: t.native
  ns: t.native

--- # partly written in Python (see Greeter below)
Name: Greeter

Properties:
  greeting:
    Contract: $.string()
    Default: Hello

Methods:
  viaEveryRoute:
    Body:
      - Return:
          - $.triple(111)
          - :Greeter.triple(111)
          - ns:Greeter.triple(111)
          - type('t.native.Greeter').triple(111)

  classRoutes:
    Body:
      - Return:
          - $.tagged('!')
          - :Greeter.tagged('?')

  instanceState:
    Body:
      - $.remember(a)
      - $.remember(b)
      - Return: $.remembered()

  greet:
    Arguments:
      - who:
          Contract: $.string()
    Body:
      - Return: $.compose($who, punctuation => '!')

  extensions:
    Body:
      - Return:
          - 4.square()
          - :Greeter.square(5)
          - str(ab).twice()
          - 7.timesTen()

  varargs:
    Body:
      - Return: $.collect(1, 2, 3, x => 4)

--- # uses the Python extension methods through Import
Name: User
Import: Greeter

Methods:
  run:
    Body:
      - Return: [3.square(), str(xy).twice()]

  wrongType:
    Body:
      - Return: str(text).square()
"""


class Greeter:
    """The Python half of t.native.Greeter."""

    def __init__(self, this: object) -> None:
        self.this = this
        self.seen: list[str] = []

    def remember(self, item: str) -> None:
        self.seen.append(item)

    def remembered(self) -> list[str]:
        return self.seen

    def compose(self, who: str, punctuation: str = ".") -> str:
        return f"{self.this.get_property('greeting', None)}, {who}{punctuation}"

    def collect(self, *items: int, **named: int) -> list[object]:
        return [list(items), named]

    @staticmethod
    def triple(arg: int) -> int:
        return 3 * arg

    @classmethod
    def tagged(cls, suffix: str) -> str:
        return cls.__name__ + suffix

    @staticmethod
    @extension
    def square(value: int) -> int:
        return value * value

    @staticmethod
    @extension
    def twice(text: str) -> str:
        return text * 2

    @classmethod
    @extension
    def times_ten(cls, value: int) -> int:
        return value * 10

    def _hidden(self) -> None:  # pragma: no cover - never bound
        raise AssertionError


@pytest.fixture
def executor(tmp_path: pathlib.Path) -> Executor:
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.native\n"
        "Classes:\n  t.native.Greeter: Native.yaml\n  t.native.User: Native.yaml\n")
    (package / "Classes" / "Native.yaml").write_text(textwrap.dedent(CLASSES))
    registry = core_registry()
    registry.bind_native("t.native.Greeter", python_binder(Greeter))
    registry.add(read_package_dir(package))
    return Executor(registry)


def _new(executor: Executor, name: str):  # type: ignore[no-untyped-def]
    return executor.new_object(executor.classes.find(name), None, {})


def test_python_names_become_camel_case() -> None:
    assert murano_name("static_python_method") == "staticPythonMethod"
    assert murano_name("times_ten") == "timesTen"
    assert murano_name("plain") == "plain"


def test_static_method_is_reachable_by_every_route(executor: Executor) -> None:
    assert executor.call(_new(executor, "t.native.Greeter"), "viaEveryRoute") == (
        333, 333, 333, 333)


def test_classmethod_gets_the_python_class(executor: Executor) -> None:
    assert executor.call(_new(executor, "t.native.Greeter"), "classRoutes") == (
        "Greeter!", "Greeter?")


def test_static_methods_are_static_and_hidden_names_are_not_bound(
        executor: Executor) -> None:
    cls = executor.classes.find("t.native.Greeter")
    assert cls.methods["triple"].is_static
    assert cls.methods["tagged"].is_static
    assert not cls.methods["remember"].is_static
    assert "hidden" not in cls.methods and "_hidden" not in cls.methods
    assert executor.call(cls, "triple", 5) == 15


def test_instance_methods_keep_state_per_object(executor: Executor) -> None:
    first = _new(executor, "t.native.Greeter")
    second = _new(executor, "t.native.Greeter")
    assert executor.call(first, "instanceState") == ("a", "b")
    assert executor.call(first, "instanceState") == ("a", "b", "a", "b")
    assert executor.call(second, "remembered") == ()


def test_python_method_called_from_muranopl_with_named_arguments(executor: Executor) -> None:
    assert executor.call(_new(executor, "t.native.Greeter"), "greet", "Ann") == "Hello, Ann!"


def test_varargs_and_kwargs_reach_python(executor: Executor) -> None:
    assert executor.call(_new(executor, "t.native.Greeter"), "varargs") == (
        (1, 2, 3), {"x": 4})


def test_python_extension_methods(executor: Executor) -> None:
    assert executor.call(_new(executor, "t.native.Greeter"), "extensions") == (
        16, 25, "abab", 70)
    assert executor.classes.find("t.native.Greeter").methods["timesTen"].is_extension


def test_imported_python_extensions_use_the_annotated_type(executor: Executor) -> None:
    user = _new(executor, "t.native.User")
    assert executor.call(user, "run") == (9, "xyxy")
    from laguna.lang.errors import MuranoPlError
    with pytest.raises(MuranoPlError) as info:
        executor.call(user, "wrongType")
    # `square` extends int only, so a string has no such method
    assert info.value.names[-1] == "yaql.language.exceptions.NoMethodRegisteredException"
