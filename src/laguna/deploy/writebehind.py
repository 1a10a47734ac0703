"""Write-behind: a running deployment's store writes, committed in batches.

A deployment reports and changes component states many times a second; one
transaction each cost more than the work reported (a commit, and on SQLite an
fsync). :class:`WriteBehind` gathers the writes and commits them together, at
most ``delay`` seconds after the first one waiting (so ``laguna status`` and
``laguna deployments`` in another process see a running deployment's reports
that late at most), at once when ``limit`` are waiting, and when the
deployment ends (:meth:`close`, which the service calls before it records the
end, whether the run succeeded, failed or raised).

Writes run in the order they were added, in one transaction. A write added
with a ``once`` key already waiting is dropped: the one waiting writes the
latest state when it runs (the environment's component map is such a write).

A commit made by the background thread that fails is raised again by the next
:meth:`add` or by :meth:`close`, in the deployment's own threads, where the
failure of the store would have surfaced with one transaction per write.
"""

from __future__ import annotations

import threading
import time
import typing as t

from sqlalchemy.orm import Session

from laguna.store.db import Database

#: one store write, run inside the batch's transaction
Write = t.Callable[[Session], None]


class WriteBehind:
    """Store writes committed in batches by a background thread."""

    def __init__(self, database: Database, delay: float, limit: int) -> None:
        self.database = database
        self.delay = delay
        self.limit = limit
        self._state = threading.Condition()
        self._pending: list[Write] = []
        self._once: set[t.Hashable] = set()
        self._closed = False
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        # one batch commits at a time, so that batches reach the store in order
        self._committing = threading.Lock()

    def add(self, write: Write, once: t.Hashable | None = None) -> None:
        """Queue ``write``; commit now if ``limit`` writes are waiting."""
        with self._state:
            self._raise_failure()
            if self._closed:
                raise RuntimeError("the deployment's store writes were already closed")
            if once is not None:
                if once in self._once:
                    return
                self._once.add(once)
            self._pending.append(write)
            full = len(self._pending) >= self.limit
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="laguna-write-behind",
                                                daemon=True)
                self._thread.start()
            if len(self._pending) == 1:
                self._state.notify()    # the thread waits for a first write
        if full:
            self.flush()

    def flush(self) -> None:
        """Commit every waiting write now, in one transaction."""
        with self._committing:
            with self._state:
                writes, self._pending, self._once = self._pending, [], set()
            if writes:
                with self.database.session() as session:
                    for write in writes:
                        write(session)

    def close(self) -> None:
        """Stop the background thread and commit what is waiting; raise a failed commit."""
        with self._state:
            self._closed = True
            self._state.notify()
            thread = self._thread
        if thread is not None:
            thread.join()
        self.flush()
        with self._state:
            self._raise_failure()

    def _raise_failure(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        while True:
            with self._state:
                while not self._pending and not self._closed:
                    self._state.wait()
                if self._closed:
                    return
                # let the batch grow for ``delay``; close() ends the wait early
                deadline = time.monotonic() + self.delay
                while not self._closed and (left := deadline - time.monotonic()) > 0:
                    self._state.wait(left)
                if self._closed:
                    return
            try:
                self.flush()
            except Exception as error:  # surfaced by add() or close(), in the caller
                with self._state:
                    self._error = error
