"""Environments, deployments and reports in the store (SQLite, and PostgreSQL when set)."""

from __future__ import annotations

import datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from laguna.store import environments as repo
from laguna.store.db import Database
from laguna.store.models import DeploymentRecord, EnvironmentRecord, StatusReport

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def _deployment(environment_id: str) -> DeploymentRecord:
    return DeploymentRecord(environment_id=environment_id, operation="deploy",
                            state="running", started=NOW, owner_host="h", owner_pid=1,
                            owner_started="5")


def test_names_are_unique_per_project(database: Database) -> None:
    with database.session() as session:
        first = repo.create_environment(session, "local", "shop", "pending", NOW)
        again = repo.create_environment(session, "local", "shop", "pending", NOW)
        other = repo.create_environment(session, "p2", "shop", "pending", NOW)
        assert again.id == first.id and other.id != first.id
        assert len(first.id) == 32
    with pytest.raises(IntegrityError):
        with database.session() as session:
            session.add(EnvironmentRecord(project_id="local", name="shop", status="pending",
                                          version=0, outputs={}, components={},
                                          created=NOW, updated=NOW))
    with database.session() as session:
        assert [e.project_id for e in repo.list_environments(session, "p2")] == ["p2"]


def test_acquire_is_won_once_until_released(database: Database) -> None:
    with database.session() as session:
        env = repo.create_environment(session, "local", "shop", "pending", NOW)
        one = repo.add_deployment(session, _deployment(env.id))
        two = repo.add_deployment(session, _deployment(env.id))
        assert repo.acquire(session, env.id, one.id, NOW)
        assert not repo.acquire(session, env.id, two.id, NOW)
        assert env.acquired_by == one.id
        repo.release(session, env)
        session.flush()
        assert repo.acquire(session, env.id, two.id, NOW)


def test_reports_are_numbered_in_order(database: Database) -> None:
    with database.session() as session:
        env = repo.create_environment(session, "local", "shop", "pending", NOW)
        deployment = repo.add_deployment(session, _deployment(env.id))
        for text in ["a", "b", "c"]:
            repo.add_report(session, deployment.id, "info", text, "obj", NOW)
        assert [(r.position, r.text) for r in repo.list_reports(session, deployment.id)] == [
            (1, "a"), (2, "b"), (3, "c")]
        assert repo.last_deployment(session, env.id) is not None


def test_packages_replace_and_add_keep_order(database: Database) -> None:
    with database.session() as session:
        env = repo.create_environment(session, "local", "shop", "pending", NOW)
        repo.replace_packages(session, env, [("a", "1.0.0", b"A"), ("b", "2.0.0", b"B")])
        repo.add_packages(session, env, [("b", "2.0.0", b"B"), ("a", "1.1.0", b"A2")])
        assert [(p.name, p.version, p.position) for p in env.package_rows] == [
            ("a", "1.0.0", 0), ("b", "2.0.0", 1), ("a", "1.1.0", 2)]
        repo.replace_packages(session, env, [("c", "1.0.0", b"C")])
        session.flush()
        assert [p.name for p in env.package_rows] == ["c"]


def test_deleting_an_environment_deletes_its_history(database: Database) -> None:
    with database.session() as session:
        env = repo.create_environment(session, "local", "shop", "pending", NOW)
        deployment = repo.add_deployment(session, _deployment(env.id))
        repo.add_report(session, deployment.id, "info", "x", None, NOW)
    with database.session() as session:
        session.execute(sa.delete(EnvironmentRecord))
    with database.session() as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(StatusReport)) == 0
        assert session.scalar(sa.select(sa.func.count()).select_from(DeploymentRecord)) == 0
