"""The API's side of the distributed mode on a real RabbitMQ node."""

from __future__ import annotations

import logging

import pytest

from laguna.engine.broker import QUEUE, BrokerQueue, task_message
from tests.rabbitmq import RabbitMQ
from tests.servers import free_port


def test_a_queued_task_becomes_one_persistent_message(broker_node: RabbitMQ) -> None:
    queue = BrokerQueue(broker_node.url)
    try:
        before = broker_node.queued(QUEUE)
        queue.notify("task-1")
        assert broker_node.queued(QUEUE) == before + 1
    finally:
        queue.stop()


def test_a_message_rabbitmq_does_not_take_is_left_to_the_sweep(
        caplog: pytest.LogCaptureFixture) -> None:
    queue = BrokerQueue(f"amqp://guest:guest@127.0.0.1:{free_port()}/%2F"
                        "?connection_attempts=1&retry_delay=0")
    with caplog.at_level(logging.WARNING, logger="laguna.engine.broker"):
        queue.notify("task-2")   # answers nothing, raises nothing
    assert [r.getMessage() for r in caplog.records if r.name == "laguna.engine.broker"] == [
        "task task-2: RabbitMQ did not take its message; the workers' sweep will send it "
        "again"]


def test_a_message_names_its_task_for_the_workers_actor() -> None:
    message = task_message("abc")
    assert (message.queue_name, message.actor_name, message.args) == (
        "laguna-engine", "laguna_task", ("abc",))
