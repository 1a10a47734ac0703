"""The engine behind the API: the work routes hand over (deploys, actions,
deletions) as task records, and who runs them.

- :mod:`laguna.engine.tasks`: the task record's states, the ``Handler`` of a
  kind of task and the ``TaskQueue`` a route wakes; ``StoreTaskQueue``, the
  embedded default, runs tasks in threads of the API's own process;
- :mod:`laguna.engine.handlers`: what each kind of task does, through the
  deployment layer's :class:`~laguna.deploy.service.Service`;
- the distributed mode (``laguna serve --broker``, ``laguna worker``): tasks
  travel as Dramatiq messages on RabbitMQ to worker processes, one
  environment at a time under a PostgreSQL advisory lock.

Nothing here imports FastAPI: a worker process serves no HTTP.
"""
