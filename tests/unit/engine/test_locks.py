"""An environment's advisory lock: one holder at a time, released with its
holder's connection."""

from __future__ import annotations

import threading
import time

import sqlalchemy as sa

from laguna.engine.locks import LOCK_SPACE, environment_lock, lock_key
from laguna.store.db import Database


def test_a_second_holder_waits_until_the_first_lets_go(pg: Database) -> None:
    events: list[str] = []
    first_has_it = threading.Event()

    def second() -> None:
        first_has_it.wait(10)
        with environment_lock(pg, "env-1"):
            events.append("second in")

    thread = threading.Thread(target=second)
    thread.start()
    with environment_lock(pg, "env-1"):
        first_has_it.set()
        time.sleep(0.5)
        events.append("first out")
    thread.join(10)
    assert events == ["first out", "second in"]


def test_other_environments_are_not_held(pg: Database) -> None:
    with environment_lock(pg, "env-1"):
        done = threading.Event()

        def other() -> None:
            with environment_lock(pg, "env-2"):
                done.set()

        thread = threading.Thread(target=other)
        thread.start()
        assert done.wait(5)
        thread.join(5)


def test_a_holder_whose_connection_ends_releases_the_lock(pg: Database) -> None:
    # a worker killed mid-deploy: its connection ends without unlocking
    killed = pg.engine.connect()
    killed.execute(sa.select(sa.func.pg_advisory_lock(LOCK_SPACE, lock_key("env-1"))))
    killed.commit()
    taken = threading.Event()

    def waiter() -> None:
        with environment_lock(pg, "env-1"):
            taken.set()

    thread = threading.Thread(target=waiter)
    thread.start()
    assert not taken.wait(0.5)
    killed.invalidate()   # closes the DBAPI connection, as a dead process's would be
    assert taken.wait(10)
    thread.join(5)


def test_lock_keys_are_stable_32_bit_hashes() -> None:
    assert lock_key("0b9e6d4c-1b1f-4c57-9f0e-2a1d5b7c9e11") == \
        lock_key("0b9e6d4c-1b1f-4c57-9f0e-2a1d5b7c9e11")
    assert lock_key("a") != lock_key("b")
    assert -2 ** 31 <= lock_key("x") < 2 ** 31
