"""How the store publishes its changes on PostgreSQL: triggers that
``pg_notify`` the :data:`CHANNEL` with an environment's id.

Every process that writes the store (the CLI, the API's embedded engine, a
remote worker) then publishes without knowing it, and any process sharing the
store can wake its readers (:mod:`laguna.store.notifications`). The
notification carries only the id, well under PostgreSQL's 8000-byte payload
limit: readers read what changed from the store (:mod:`laguna.store.events`).

Published: a status report inserted, a deployment inserted or its state
changed, an environment's status changed or the environment deleted.
PostgreSQL folds identical notifications of one transaction into one, so a
batch of reports wakes a listener once, when it commits.

SQLite has no notifications: its readers poll. Migration 0007 installs the
triggers, and so does :func:`laguna.store.db.create_schema` (a new store's
schema is made from the models, which know no triggers): both call
:func:`install`. A later change of the triggers needs a migration that
copies this SQL as it was before changing it.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["CHANNEL", "install", "remove"]

#: the channel every notification goes to; the payload is an environment's id
CHANNEL = "laguna_events"

_FUNCTIONS = {
    # a report names its deployment only: one lookup by primary key
    "laguna_notify_report": f"""
        PERFORM pg_notify('{CHANNEL}', (SELECT environment_id FROM deployments
                                        WHERE id = NEW.deployment_id));
        RETURN NULL;""",
    "laguna_notify_deployment": f"""
        PERFORM pg_notify('{CHANNEL}', NEW.environment_id);
        RETURN NULL;""",
    "laguna_notify_environment": f"""
        PERFORM pg_notify('{CHANNEL}', CASE WHEN TG_OP = 'DELETE' THEN OLD.id
                                            ELSE NEW.id END);
        RETURN NULL;""",
}

#: (trigger, table, when it fires, function)
_TRIGGERS = [
    ("laguna_report_inserted", "status_reports", "AFTER INSERT", "laguna_notify_report"),
    ("laguna_deployment_inserted", "deployments", "AFTER INSERT", "laguna_notify_deployment"),
    ("laguna_deployment_changed", "deployments",
     "AFTER UPDATE OF state", "laguna_notify_deployment",),
    ("laguna_environment_changed", "environments",
     "AFTER UPDATE OF status", "laguna_notify_environment"),
    ("laguna_environment_deleted", "environments", "AFTER DELETE", "laguna_notify_environment"),
]

#: the triggers that fire on an UPDATE only when the column really changed
#: (an ORM flush may write a column with the value it had)
_CONDITIONS = {
    "laguna_deployment_changed": "OLD.state IS DISTINCT FROM NEW.state",
    "laguna_environment_changed": "OLD.status IS DISTINCT FROM NEW.status",
}


def install(connection: sa.Connection) -> None:
    """Create (or replace) the functions and triggers; nothing on SQLite."""
    if connection.dialect.name != "postgresql":
        return
    for name, body in _FUNCTIONS.items():
        connection.exec_driver_sql(
            f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS "
            f"$$ BEGIN {body} END $$")
    for trigger, table, event, function in _TRIGGERS:
        condition = _CONDITIONS.get(trigger)
        when = f" WHEN ({condition})" if condition else ""
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
        connection.exec_driver_sql(
            f"CREATE TRIGGER {trigger} {event} ON {table} FOR EACH ROW{when} "
            f"EXECUTE FUNCTION {function}()")


def remove(connection: sa.Connection) -> None:
    """Drop the triggers and functions; nothing on SQLite."""
    if connection.dialect.name != "postgresql":
        return
    for trigger, table, _event, _function in _TRIGGERS:
        connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    for name in _FUNCTIONS:
        connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {name}()")
