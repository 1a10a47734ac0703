"""Engine work as Dramatiq messages on RabbitMQ: the distributed mode's queue.

A route commits a task record, then :class:`BrokerQueue` sends one message
carrying the task's id to the ``laguna-engine`` queue (durable, messages
persistent). A worker (:mod:`laguna.engine.worker`) acknowledges the message
only when the task has ended, so a worker killed mid-deploy leaves the
message unacknowledged and RabbitMQ delivers it to another. Why Dramatiq,
not Celery: acknowledging late is its default, its worker is a library we
run inside ``laguna worker`` with our own settings, and it needs no result
backend (results are the task records); docs/DEPLOY.md says more.

A message may arrive twice (a redelivery, or the sweeper's resend of a task
whose first send failed): the task record decides, and a task that has ended
is not run again.
"""

from __future__ import annotations

import logging
import threading

import dramatiq
from dramatiq.brokers.rabbitmq import RabbitmqBroker
from dramatiq.middleware import Middleware, Retries, ShutdownNotifications

log = logging.getLogger(__name__)

#: the queue every engine message travels on, and the actor that runs a task
QUEUE = "laguna-engine"
ACTOR = "laguna_task"
#: a message whose handling raised (the store unreachable, say) is tried again
#: this many times, at growing intervals up to MAX_BACKOFF_MS, before RabbitMQ's
#: dead-letter queue keeps it; a task's own failure is a result, not a raise
MAX_RETRIES = 20
MIN_BACKOFF_MS = 1000
MAX_BACKOFF_MS = 60_000


def open_broker(url: str) -> RabbitmqBroker:
    """A broker on RabbitMQ at ``url`` (``amqp://user:password@host:port/vhost``).

    Dramatiq's time limit and age limit are left out: a deployment has its own
    timeouts, and a message that waited while every worker was down is still
    wanted when one comes back.
    """
    middleware: list[Middleware] = [
        ShutdownNotifications(),
        Retries(max_retries=MAX_RETRIES, min_backoff=MIN_BACKOFF_MS,
                max_backoff=MAX_BACKOFF_MS),
    ]
    broker = RabbitmqBroker(url=url, middleware=middleware)
    broker.declare_queue(QUEUE)
    return broker


def task_message(task_id: str) -> dramatiq.Message[None]:
    return dramatiq.Message(queue_name=QUEUE, actor_name=ACTOR, args=(task_id,), kwargs={},
                            options={})


class BrokerQueue:
    """The API's side of the distributed mode: each queued task becomes a message.

    Nothing runs in the API's process. A message that cannot be sent (RabbitMQ
    down) is not lost: the task record stays ``queued``, and the workers'
    periodic sweep sends it again (:mod:`laguna.engine.housekeeping`).
    """

    remote = True

    def __init__(self, url: str) -> None:
        self.url = url
        self._broker: RabbitmqBroker | None = None
        self._opening = threading.Lock()

    def notify(self, task_id: str) -> None:
        try:
            self.broker.enqueue(task_message(task_id))
        except Exception:  # the record is committed: the sweep will send it
            log.warning("task %s: RabbitMQ did not take its message; the workers' "
                        "sweep will send it again", task_id, exc_info=True)

    @property
    def broker(self) -> RabbitmqBroker:
        with self._opening:  # routes notify from many threads at once
            if self._broker is None:
                self._broker = open_broker(self.url)
            return self._broker

    def start(self) -> None:
        pass

    def stop(self) -> None:
        if self._broker is not None:
            self._broker.close()
            self._broker = None
