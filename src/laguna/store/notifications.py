"""Waiting for an environment's next change in the store.

A reader of :mod:`laguna.store.events` subscribes to its environment, reads,
and waits on its :class:`Subscription` before reading again. On PostgreSQL a
:class:`Listener` (one per process and store: one connection, not one per
reader) receives the store's notifications (:mod:`laguna.store.publication`)
and wakes the subscribers of the environment named. On SQLite, which has no
notifications, a subscription only times out: the reader polls.

Either way a wait is bounded (its ``interval``): a notification lost (the
listening connection broke, or came up after the change) only delays a
reader until its next read, never stops it. A subscription made before the
read keeps a notification that arrives during the read: the next wait
returns at once.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import typing as t

import sqlalchemy as sa

from laguna.store.publication import CHANNEL

__all__ = ["POLL_INTERVAL", "REREAD_INTERVAL", "Listener", "Notifications", "Subscription",
           "notifications"]

log = logging.getLogger(__name__)

#: seconds between two reads without notifications (SQLite)
POLL_INTERVAL = 0.5
#: seconds a reader waits at most for a notification before reading anyway
REREAD_INTERVAL = 5.0
#: seconds the listener waits in one poll of its connection: how late it sees
#: that its last subscriber left
_LISTEN_SLICE = 1.0
#: seconds before a broken listening connection is opened again
_RECONNECT_DELAY = 1.0


class Subscription:
    """A reader's wait for changes of one environment (sync or async)."""

    def __init__(self, notifications: Notifications, environment_id: str,
                 interval: float) -> None:
        self.notifications = notifications
        self.environment_id = environment_id
        #: the longest a wait lasts
        self.interval = interval
        self._flag = threading.Event()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._async_flag: asyncio.Event | None = None

    def notify(self) -> None:
        """Wake the reader (from any thread)."""
        with self._lock:
            self._flag.set()
            if self._loop is not None and self._async_flag is not None:
                try:
                    self._loop.call_soon_threadsafe(self._async_flag.set)
                except RuntimeError:    # its loop closed: the reader is gone
                    pass

    def wait(self, timeout: float | None = None) -> bool:
        """Block until notified or ``timeout`` (default: the interval) passed;
        True when notified."""
        notified = self._flag.wait(self.interval if timeout is None else timeout)
        self._flag.clear()
        return notified

    async def wait_async(self, timeout: float | None = None) -> bool:
        """:meth:`wait` on the running event loop."""
        with self._lock:
            if self._async_flag is None:
                self._loop = asyncio.get_running_loop()
                self._async_flag = asyncio.Event()
                if self._flag.is_set():
                    self._async_flag.set()
        try:
            await asyncio.wait_for(self._async_flag.wait(),
                                   self.interval if timeout is None else timeout)
            notified = True
        except asyncio.TimeoutError:
            notified = False
        with self._lock:
            self._async_flag.clear()
            self._flag.clear()
        return notified

    def close(self) -> None:
        self.notifications.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Notifications:
    """The subscriptions of one store in this process; on PostgreSQL (psycopg)
    fed by a :class:`Listener` that runs while someone is subscribed."""

    def __init__(self, engine: sa.Engine) -> None:
        self.engine = engine
        #: whether the store publishes (readers then wait longer between reads)
        self.publishes = engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg"
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}
        self._listener: Listener | None = None

    def subscribe(self, environment_id: str, interval: float | None = None) -> Subscription:
        """Wait for ``environment_id``'s changes; ``interval``: the longest wait
        (default: :data:`REREAD_INTERVAL` where the store publishes, else
        :data:`POLL_INTERVAL`)."""
        if interval is None:
            interval = REREAD_INTERVAL if self.publishes else POLL_INTERVAL
        subscription = Subscription(self, environment_id, interval)
        with self._lock:
            self._subscribers.setdefault(environment_id, set()).add(subscription)
            if self.publishes and self._listener is None:
                self._listener = Listener(self)
                self._listener.start()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            found = self._subscribers.get(subscription.environment_id)
            if found is not None:
                found.discard(subscription)
                if not found:
                    del self._subscribers[subscription.environment_id]

    def deliver(self, environment_id: str | None) -> None:
        """Wake the subscribers of ``environment_id`` (None: every subscriber)."""
        with self._lock:
            if environment_id is None:
                woken = [s for found in self._subscribers.values() for s in found]
            else:
                woken = list(self._subscribers.get(environment_id, ()))
        for subscription in woken:
            subscription.notify()

    def listening(self) -> bool:
        """Whether a listener runs (tests wait for it before writing)."""
        with self._lock:
            return self._listener is not None and self._listener.ready.is_set()

    def _listener_done(self, listener: Listener) -> bool:
        """Called by the listener between polls: True (and it is forgotten) when
        nobody is subscribed any more, so that it closes its connection."""
        with self._lock:
            if self._subscribers:
                return False
            if self._listener is listener:
                self._listener = None
            return True


class Listener(threading.Thread):
    """One ``LISTEN`` connection of the process, outside the engine's pool,
    opened with the engine's own connection arguments."""

    def __init__(self, notifications: Notifications) -> None:
        super().__init__(name="laguna-store-listener", daemon=True)
        self.notifications = notifications
        #: set once LISTEN is in effect (and again after each reconnection)
        self.ready = threading.Event()

    def run(self) -> None:
        while True:
            try:
                connection = self._connect()
            except Exception:  # noqa: BLE001 - the store may be down: readers poll meanwhile
                log.warning("cannot listen to the store's notifications", exc_info=True)
                if self._idle(_RECONNECT_DELAY):
                    return
                continue
            try:
                if self._listen(connection):
                    return
            except Exception:  # noqa: BLE001 - a broken connection: open another
                log.warning("the store's notification connection broke", exc_info=True)
            finally:
                self.ready.clear()
                connection.close()
            # what was published meanwhile was lost: every reader reads again
            self.notifications.deliver(None)

    def _connect(self) -> t.Any:
        engine = self.notifications.engine
        arguments, options = engine.dialect.create_connect_args(engine.url)
        connection = engine.dialect.loaded_dbapi.connect(*arguments, **options)
        connection.autocommit = True
        connection.execute(f"LISTEN {CHANNEL}")
        return connection

    def _listen(self, connection: t.Any) -> bool:
        """Deliver notifications until nobody is subscribed (True)."""
        self.ready.set()
        # changes made before LISTEN took effect were not heard
        self.notifications.deliver(None)
        while True:
            for notification in connection.notifies(timeout=_LISTEN_SLICE):
                self.notifications.deliver(notification.payload)
            if self.notifications._listener_done(self):
                return True

    def _idle(self, seconds: float) -> bool:
        threading.Event().wait(seconds)
        return self.notifications._listener_done(self)


_stores: dict[str, Notifications] = {}
_stores_lock = threading.Lock()


def notifications(engine: sa.Engine) -> Notifications:
    """The process's :class:`Notifications` of the store ``engine`` connects to
    (one per URL, so one listening connection however many readers)."""
    key = engine.url.render_as_string(hide_password=False)
    with _stores_lock:
        found = _stores.get(key)
        if found is None:
            found = _stores[key] = Notifications(engine)
        return found
