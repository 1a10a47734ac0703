"""One worker at a time on an environment: a PostgreSQL advisory lock held for
the run.

The lock is a session lock of a connection the run keeps checked out, not a
row: PostgreSQL releases it the moment that connection ends, so a worker
killed mid-deploy (its socket closed by the kernel) frees the environment at
once, and the worker that receives the redelivered message takes it next.
Under the lock nobody else works the environment, so whatever claim a
stored deployment still shows belongs to a run that is gone
(:class:`HeldLock` says so to the deployment layer's recovery).

A host that vanishes without closing its sockets is noticed by PostgreSQL's
TCP keepalives (``tcp_keepalives_idle`` on the server; docs/DEPLOY.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import typing as t

import sqlalchemy as sa

from laguna.deploy.owner import ProcessOwner
from laguna.store.db import Database

log = logging.getLogger(__name__)

#: a namespace for laguna's advisory locks, so they cannot meet another
#: application's on a shared server (pg_advisory_lock(int, int) form)
LOCK_SPACE = 0x6C61


def lock_key(environment_id: str) -> int:
    """The lock's 32-bit key of an environment (a stable hash of its id)."""
    return int.from_bytes(hashlib.sha256(environment_id.encode()).digest()[:4], "big",
                          signed=True)


class HeldLock:
    """Liveness under the environment's lock: no other run of it is alive."""

    def alive(self, owner: ProcessOwner) -> bool:
        return False


@contextlib.contextmanager
def environment_lock(database: Database, environment_id: str) -> t.Iterator[None]:
    """Hold ``environment_id``'s lock while the block runs; waits while another
    worker holds it. Needs PostgreSQL (the distributed mode's store)."""
    key = lock_key(environment_id)
    connection = database.engine.connect()
    try:
        connection.execute(sa.select(sa.func.pg_advisory_lock(LOCK_SPACE, key)))
        # the lock outlives the transaction: end it, so the connection does not
        # sit idle in a transaction for the whole deployment
        connection.commit()
    except BaseException:
        connection.close()
        raise
    try:
        yield
    finally:
        try:
            connection.execute(sa.select(sa.func.pg_advisory_unlock(LOCK_SPACE, key)))
            connection.commit()
            connection.close()
        except Exception:
            # a connection that could not unlock must not go back to the pool
            # holding the lock: closing it for good releases the lock
            log.exception("releasing the lock of environment %s failed", environment_id)
            connection.invalidate()
            connection.close()
