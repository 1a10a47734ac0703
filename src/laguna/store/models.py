"""The catalog's tables as typed SQLAlchemy 2 ORM classes.

The schema itself is owned by the Alembic migrations in ``migrations/``;
these classes must describe the same tables: a new database's schema is made
from them (:func:`laguna.store.db.bring_up_to_date`), and tests compare the two.
"""

from __future__ import annotations

import datetime
import typing as t
import uuid

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class PackageRecord(Base):
    """One version of one package in the catalog."""

    __tablename__ = "packages"
    __table_args__ = (UniqueConstraint("fully_qualified_name", "version",
                                       name="uq_packages_fqn_version"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    fully_qualified_name: Mapped[str] = mapped_column(String(255), index=True)
    name: Mapped[str] = mapped_column(String(255))
    version: Mapped[str] = mapped_column(String(255))
    # The parts of the version, so that SQL can order and filter by them;
    # an empty prerelease marks a release (which sorts after its prereleases).
    version_major: Mapped[int] = mapped_column(Integer)
    version_minor: Mapped[int] = mapped_column(Integer)
    version_patch: Mapped[int] = mapped_column(Integer)
    version_prerelease: Mapped[str] = mapped_column(String(255), default="")
    type: Mapped[str] = mapped_column(String(32))
    format: Mapped[str] = mapped_column(String(32))
    description: Mapped[str | None] = mapped_column(Text)
    author: Mapped[str | None] = mapped_column(String(255))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    is_public: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[str | None] = mapped_column(String(64))
    # The big columns load only when used, so listing stays cheap.
    archive: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)
    manifest: Mapped[dict[str, t.Any]] = mapped_column(JSON)
    logo: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    ui_definition: Mapped[str | None] = mapped_column(Text, deferred=True)
    created_at: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                          onupdate=utcnow)
    #: the supplier's logo as the original's catalog kept it (a taken-over
    #: package's); None: read from the archive (the manifest's ``Supplier``)
    supplier_logo: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)

    tag_rows: Mapped[list[PackageTag]] = relationship(
        back_populates="package", cascade="all, delete-orphan", lazy="selectin",
        order_by="PackageTag.tag")
    category_rows: Mapped[list[PackageCategory]] = relationship(
        back_populates="package", cascade="all, delete-orphan", lazy="selectin",
        order_by="PackageCategory.category")
    class_rows: Mapped[list[PackageClass]] = relationship(
        back_populates="package", cascade="all, delete-orphan",
        order_by="PackageClass.class_name")

    @property
    def tags(self) -> list[str]:
        return [row.tag for row in self.tag_rows]

    @property
    def categories(self) -> list[str]:
        return [row.category for row in self.category_rows]

    @property
    def class_names(self) -> list[str]:
        return [row.class_name for row in self.class_rows]

    def __repr__(self) -> str:
        return f"<PackageRecord {self.fully_qualified_name} {self.version}>"


class PackageTag(Base):
    __tablename__ = "package_tags"

    package_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("packages.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(255), primary_key=True, index=True)
    package: Mapped[PackageRecord] = relationship(back_populates="tag_rows")


class PackageCategory(Base):
    __tablename__ = "package_categories"

    package_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("packages.id", ondelete="CASCADE"), primary_key=True)
    category: Mapped[str] = mapped_column(String(255), primary_key=True, index=True)
    package: Mapped[PackageRecord] = relationship(back_populates="category_rows")


class PackageClass(Base):
    """A class a package defines, so the engine finds packages by class name."""

    __tablename__ = "package_classes"

    package_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("packages.id", ondelete="CASCADE"), primary_key=True)
    class_name: Mapped[str] = mapped_column(String(255), primary_key=True, index=True)
    package: Mapped[PackageRecord] = relationship(back_populates="class_rows")


def new_id() -> str:
    """A Murano-style id: a uuid4 as 32 hex digits."""
    return uuid.uuid4().hex


class EnvironmentRecord(Base):
    """A named environment of a project and what was last deployed into it.

    ``acquired_by`` holds the id of the running deployment that owns the
    environment; None when no operation runs.
    """

    __tablename__ = "environments"
    __table_args__ = (UniqueConstraint("project_id", "name",
                                       name="uq_environments_project_id_name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(255))
    language: Mapped[str | None] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(32))
    version: Mapped[int] = mapped_column(Integer, default=0)
    model: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    outputs: Mapped[dict[str, t.Any]] = mapped_column(JSON, default=dict)
    components: Mapped[dict[str, t.Any]] = mapped_column(JSON, default=dict)
    acquired_by: Mapped[str | None] = mapped_column(String(36))
    acquired_at: Mapped[datetime.datetime | None] = mapped_column(DateTime(timezone=True))
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: the object model the API edits before the first deployment (Murano's
    #: environment description); None for environments the CLI made
    description: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    #: the actions the deployed objects offer, as the last run listed them
    #: (``{"digest": ..., "actions": [...]}``, laguna.deploy.readonly), for
    #: ``laguna status`` to read without loading the language; None when not kept
    actions: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    #: when the environment next needs watching (its front end's earliest check
    #: or policy, :class:`laguna.deploy.frontend.Watcher`); None: nothing to watch
    watch_due: Mapped[datetime.datetime | None] = mapped_column(DateTime(timezone=True))
    #: the free text the API's clients gave the environment (Murano's
    #: ``description_text``); None: none given
    description_text: Mapped[str | None] = mapped_column(Text)

    package_rows: Mapped[list[EnvironmentPackage]] = relationship(
        back_populates="environment", cascade="all, delete-orphan",
        order_by="EnvironmentPackage.position")

    def __repr__(self) -> str:
        return f"<EnvironmentRecord {self.project_id}/{self.name} {self.status}>"


class EnvironmentPackage(Base):
    """A package an environment was last deployed with, kept whole (its archive)."""

    __tablename__ = "environment_packages"

    environment_id: Mapped[str] = mapped_column(
        ForeignKey("environments.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    version: Mapped[str] = mapped_column(String(255), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    archive: Mapped[bytes] = mapped_column(LargeBinary)
    environment: Mapped[EnvironmentRecord] = relationship(back_populates="package_rows")


class DeploymentRecord(Base):
    """One operation on an environment (deploy, action, undeploy) and its outcome.

    ``owner_*`` name the process that runs it, so that a later command can
    tell a deployment whose process died from one still running.
    """

    __tablename__ = "deployments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    environment_id: Mapped[str] = mapped_column(
        ForeignKey("environments.id", ondelete="CASCADE"), index=True)
    operation: Mapped[str] = mapped_column(String(16))
    state: Mapped[str] = mapped_column(String(16))
    started: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))
    finished: Mapped[datetime.datetime | None] = mapped_column(DateTime(timezone=True))
    #: the model deployed (Murano's deployment "description")
    description: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    action: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    result: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    owner_host: Mapped[str] = mapped_column(String(255))
    owner_pid: Mapped[int] = mapped_column(Integer)
    owner_started: Mapped[str] = mapped_column(String(64))

    report_rows: Mapped[list[StatusReport]] = relationship(
        back_populates="deployment", cascade="all, delete-orphan",
        order_by="StatusReport.position")


class StatusReport(Base):
    """A report an object made during a deployment (level, text, time)."""

    __tablename__ = "status_reports"
    __table_args__ = (UniqueConstraint("deployment_id", "position",
                                       name="uq_status_reports_deployment_id_position"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    deployment_id: Mapped[str] = mapped_column(
        ForeignKey("deployments.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    level: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    entity_id: Mapped[str | None] = mapped_column(String(255))
    time: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))
    #: more than the text (Murano's ``status.details``, a traceback); None: nothing more
    details: Mapped[str | None] = mapped_column(Text)
    deployment: Mapped[DeploymentRecord] = relationship(back_populates="report_rows")


# -- the API's tables: identity, configuration sessions, templates, categories,
# -- the engine's task queue and instance statistics ---------------------------------


class ProjectRecord(Base):
    """A project (Keystone's tenant) of the embedded identity."""

    __tablename__ = "projects"

    id: Mapped[str] = mapped_column(String(64), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class UserRecord(Base):
    """A user of the embedded identity."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(64), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MembershipRecord(Base):
    """A user's role in a project: member, or admin (who may see all tenants)."""

    __tablename__ = "memberships"

    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)


class TokenRecord(Base):
    """An issued token, kept as its SHA-256 digest: the store never holds a usable token."""

    __tablename__ = "tokens"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))
    expires: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))


class ConfigurationSession(Base):
    """A configuration session of the API: a working copy of an environment's
    description, deployed at most once (Murano's ``session``)."""

    __tablename__ = "configuration_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    environment_id: Mapped[str] = mapped_column(
        ForeignKey("environments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(32))
    #: the environment's version when the session was opened
    version: Mapped[int] = mapped_column(Integer)
    description: Mapped[dict[str, t.Any]] = mapped_column(JSON)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EnvironmentTemplateRecord(Base):
    """An environment template: applications to create environments from."""

    __tablename__ = "environment_templates"
    __table_args__ = (UniqueConstraint("project_id", "name",
                                       name="uq_environment_templates_project_id_name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[dict[str, t.Any]] = mapped_column(JSON)
    is_public: Mapped[bool] = mapped_column(Boolean, default=False)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: the free text the API's clients gave the template (Murano's ``description_text``)
    description_text: Mapped[str | None] = mapped_column(Text)


class CategoryRecord(Base):
    """A catalog category; packages name theirs in ``package_categories``."""

    __tablename__ = "categories"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TaskRecord(Base):
    """A unit of work for the engine's workers (a deploy, an action, a deletion).

    The queue is this table: a worker claims a ``queued`` task with a
    conditional UPDATE, so two workers never run one task. ``claimed_by``
    names the worker's process, so that a task whose worker died is found
    and failed instead of staying ``running`` for ever.
    """

    __tablename__ = "tasks"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    kind: Mapped[str] = mapped_column(String(32))
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    environment_id: Mapped[str | None] = mapped_column(String(36), index=True)
    payload: Mapped[dict[str, t.Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16), index=True)
    result: Mapped[dict[str, t.Any] | None] = mapped_column(JSON)
    claimed_by: Mapped[str | None] = mapped_column(String(255))
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started: Mapped[datetime.datetime | None] = mapped_column(DateTime(timezone=True))
    finished: Mapped[datetime.datetime | None] = mapped_column(DateTime(timezone=True))


class PeriodicRun(Base):
    """A period of a periodic job, claimed by the worker that runs it: the
    primary key lets one worker of all those sharing the store have it."""

    __tablename__ = "periodic_runs"

    job: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: the period's number: seconds since the epoch divided by the job's period
    slot: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    claimed_by: Mapped[str] = mapped_column(String(255))
    claimed: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))


class CatalogChanges(Base):
    """The number of commits that changed the catalog, counted at commit by
    PostgreSQL's triggers (:mod:`laguna.store.catalogchanges`); one row.
    SQLite's stores keep it empty: their generation is the file's."""

    __tablename__ = "catalog_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    commits: Mapped[int] = mapped_column(BigInteger)


class InstanceStatRecord(Base):
    """When an instance (or application) of an environment lived: billing data."""

    __tablename__ = "instance_stats"

    environment_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    instance_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    project_id: Mapped[str] = mapped_column(String(64), index=True)
    #: 200 an instance, 100 an application (Murano's codes)
    instance_type: Mapped[int] = mapped_column(Integer)
    type_name: Mapped[str] = mapped_column(String(512))
    type_title: Mapped[str | None] = mapped_column(String(512))
    unit_count: Mapped[int | None] = mapped_column(Integer)
    #: seconds since the epoch, as the original kept them
    created: Mapped[int] = mapped_column(Integer)
    destroyed: Mapped[int | None] = mapped_column(Integer)


class ApiStatRecord(Base):
    """A row of the original's API statistics (Murano's ``apistats``, one per
    API host, as it last refreshed it), taken over as history: laguna's own
    servers count in memory (:mod:`laguna.api.stats`)."""

    __tablename__ = "api_stats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    host: Mapped[str | None] = mapped_column(String(255))
    request_count: Mapped[int | None] = mapped_column(BigInteger)
    error_count: Mapped[int | None] = mapped_column(BigInteger)
    average_response_time: Mapped[float | None] = mapped_column(Float)
    #: a JSON text of tenant ids and their request counts, as the original kept it
    requests_per_tenant: Mapped[str | None] = mapped_column(Text)
    requests_per_second: Mapped[float | None] = mapped_column(Float)
    errors_per_second: Mapped[float | None] = mapped_column(Float)
    cpu_count: Mapped[int | None] = mapped_column(Integer)
    cpu_percent: Mapped[float | None] = mapped_column(Float)
    created: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))
    updated: Mapped[datetime.datetime] = mapped_column(DateTime(timezone=True))
