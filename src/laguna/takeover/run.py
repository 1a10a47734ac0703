"""A takeover in order, in one transaction of the store: categories, packages
(which name categories), environments with their sessions and deployments
(whose models name packages' classes), templates, statistics. A dry run
does it all and rolls back."""

from __future__ import annotations

import typing as t

import sqlalchemy as sa

from laguna.store.db import Database
from laguna.store.models import EnvironmentRecord
from laguna.takeover.categories import take_categories
from laguna.takeover.context import Takeover
from laguna.takeover.environments import take_environments
from laguna.takeover.packages import take_packages
from laguna.takeover.report import Report
from laguna.takeover.source import MuranoDatabase
from laguna.takeover.stats import take_api_stats, take_instance_stats
from laguna.takeover.templates import take_templates


def take_over(murano_url: str, store: Database, project_map: t.Mapping[str, str],
              dry_run: bool = False) -> Report:
    """Import the Murano database at ``murano_url`` into ``store``; what was
    (or, ``dry_run``, would be) imported."""
    murano = MuranoDatabase(murano_url)
    try:
        report = Report(head=murano.head, dry_run=dry_run)
        with store.session() as session:
            job = Takeover(murano, store, session, report, project_map)
            take_categories(job)
            take_packages(job)
            take_environments(job)
            take_templates(job)
            environments = set(session.scalars(sa.select(EnvironmentRecord.id)))
            take_instance_stats(job, environments)
            take_api_stats(job)
            if dry_run:
                session.rollback()
        return report
    finally:
        murano.dispose()
