"""What every kind's import shares: the Murano database, the store's session,
the projects tenants go to, and the report."""

from __future__ import annotations

import dataclasses
import typing as t

from sqlalchemy.orm import Session

from laguna.store.db import Database
from laguna.takeover.report import Report
from laguna.takeover.source import MuranoDatabase


@dataclasses.dataclass
class Takeover:
    murano: MuranoDatabase
    #: the store (its packages, committed, for the packages' checks) and the
    #: session the takeover writes with
    store: Database
    session: Session
    report: Report
    #: Murano tenant id -> laguna project id (``--project-map``); a tenant not
    #: in it keeps its id as its project's
    project_map: t.Mapping[str, str]

    def project(self, tenant: str) -> str:
        project = self.project_map.get(tenant, tenant)
        self.report.projects[tenant] = project
        return project
