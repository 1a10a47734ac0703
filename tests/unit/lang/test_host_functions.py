"""config() and decryptData(): answered by the host through `Executor(host=...)`,
and the limits pselect honours."""

import pathlib
import textwrap

import pytest

from laguna.lang.compiler import compile_statement
from laguna.lang.errors import MuranoPlError
from laguna.lang.executor import Executor
from laguna.lang.functions import Host
from laguna.lang.functions.host import MappingDecryptor
from laguna.lang.scope import Frame, Scope
from laguna.testing.packages import core_registry, read_package_dir
from laguna.yaql import engine
from laguna.yaql.engine import Limits

CLASS = """\
Namespaces:
  =: t.host
Name: User
Methods:
  secret:
    Arguments:
      - ref: {Contract: $.string()}
    Body:
      - Return: decryptData($ref)
  lateSelect:
    Body:
      # each thread's selector takes longer than the limit (built-ins look at
      # the deadline every few thousand steps, in every thread)
      - Return: range(3).pselect(range(90000).select($ * $ mod 7).sum())
  manySquares:
    Body:
      - Return: range(200).pselect($ * $).len()
  tooMany:
    Body:
      - Return: range(2000).pselect($)
"""

SETTINGS = {"home_region": "north", "DEFAULT": {"file_server": "fs.local"},
            "rabbitmq": {"host": "mq.local", "port": 5672, "ssl": False}}


@pytest.fixture
def make(tmp_path: pathlib.Path):
    package = tmp_path / "pkg"
    (package / "Classes").mkdir(parents=True)
    (package / "manifest.yaml").write_text(
        "Format: 1.4\nType: Library\nFullName: t.host\n"
        "Classes:\n  t.host.User: User.yaml\n")
    (package / "Classes" / "User.yaml").write_text(textwrap.dedent(CLASS))

    def build(host=None, limits=Limits()):
        registry = core_registry()
        registry.add(read_package_dir(package))
        executor = Executor(registry, limits, host=host)
        return executor, executor.new_object(registry.find("t.host.User"), None, {})
    return build


def evaluate_in_core_library(executor: Executor, text: str):
    """Evaluate ``text`` as code of the core library (io.murano) would."""
    cls = executor.find_class("io.murano.Object")
    scope = Scope(executor.new_scope(cls))
    scope.frame = Frame(executor, None, None, cls, None)
    return compile_statement(engine.parse(text, False), False)(scope)


def test_config_reads_a_group_setting(make):
    executor, _ = make(Host(settings=SETTINGS))
    assert evaluate_in_core_library(executor, "config(rabbitmq, host)") == "mq.local"
    assert evaluate_in_core_library(executor, "config(rabbitmq, port)") == 5672


def test_config_of_one_setting_reads_the_default_group(make):
    executor, _ = make(Host(settings=SETTINGS))
    assert evaluate_in_core_library(executor, "config(file_server)") == "fs.local"


def test_config_of_one_setting_without_default_group_reads_the_top_level(make):
    executor, _ = make(Host(settings={"home_region": "north"}))
    assert evaluate_in_core_library(executor, "config(home_region)") == "north"


def test_config_of_an_unknown_setting_is_no_such_opt_error(make):
    executor, _ = make(Host(settings=SETTINGS))
    with pytest.raises(Exception) as info:
        evaluate_in_core_library(executor, "config(rabbitmq, nope)")
    assert info.value.murano_name == "oslo_config.cfg.NoSuchOptError"
    assert info.value.code == "LAG-E0321"
    assert str(info.value) == "no such option nope in group [rabbitmq]"
    with pytest.raises(Exception) as info:
        evaluate_in_core_library(executor, "config(nope)")
    assert str(info.value) == "no such option nope in group [DEFAULT]"


def test_decrypt_data_asks_the_hosts_decryptor(make):
    executor, user = make(Host(decryptor=MappingDecryptor({"ref-1": "s3cret"})))
    assert executor.call(user, "secret", "ref-1") == "s3cret"


def test_decrypt_data_of_an_unknown_reference(make):
    executor, user = make(Host(decryptor=MappingDecryptor({})))
    with pytest.raises(MuranoPlError) as info:
        executor.call(user, "secret", "ref-2")
    assert info.value.names == ["castellan.common.exception.ManagedObjectNotFoundError"]
    assert info.value.message == "no secret is stored under 'ref-2'"
    assert info.value.original.code == "LAG-E0323"


def test_decrypt_data_without_a_key_manager(make):
    executor, user = make()
    with pytest.raises(MuranoPlError) as info:
        executor.call(user, "secret", "ref-1")
    assert info.value.names == ["castellan.common.exception.AuthTypeInvalidError"]
    assert info.value.original.code == "LAG-E0322"


def test_pselect_threads_honour_the_time_limit(make):
    executor, user = make(limits=Limits(execution_seconds=0.01))
    with pytest.raises(MuranoPlError) as info:
        executor.call(user, "lateSelect")
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == "execution_seconds limit of 0.01 s exceeded at Classes/User.yaml:14"


def test_pselect_honours_the_collection_limit(make):
    executor, user = make(limits=Limits(iterators=1000))
    with pytest.raises(MuranoPlError) as info:
        executor.call(user, "tooMany")
    assert info.value.names == ["LimitExceededError"]
    assert info.value.message == "iterators limit of 1000 items exceeded by a collection of more than 1000 items at Classes/User.yaml:20"


def test_pselect_runs_in_bounded_threads(make, monkeypatch):
    import concurrent.futures

    from laguna.lang.functions import murano
    pools = []
    real = concurrent.futures.ThreadPoolExecutor

    class Recording(real):
        def __init__(self, max_workers):
            pools.append(max_workers)
            super().__init__(max_workers=max_workers)
    monkeypatch.setattr(murano.concurrent.futures, "ThreadPoolExecutor", Recording)
    executor, user = make()
    assert executor.call(user, "manySquares") == 200
    assert pools == [murano.PSELECT_THREADS] == [8]
