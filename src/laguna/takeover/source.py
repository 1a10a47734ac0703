"""Murano's database, read: its tables at migration heads 010 to 016.

The heads differ in columns only (tests/fixtures/murano/build.py lists them):
``environment-template.is_public`` from 011, ``description_text`` from 015;
a column a head lacks reads as None. JSON columns (Murano's ``JsonBlob``,
text) are parsed here; a value that is not JSON is a :class:`BadJson`.
"""

from __future__ import annotations

import datetime
import json
import os
import typing as t

import sqlalchemy as sa

from laguna.errors import LagunaError

#: a row of one of Murano's tables, by column name
Row = dict[str, t.Any]

#: the tables a Murano database has at every head read here
REQUIRED = ("package", "category", "tag", "package_to_tag", "package_to_category",
            "environment", "session", "task", "status", "environment-template",
            "instance_stats", "apistats")
#: the heads read here
HEADS = ("010", "011", "012", "013", "014", "015", "016")


class TakeoverError(LagunaError):
    """The database cannot be taken over (not Murano's, or of a head not read here)."""

    code = "LAG-E1310"


class BadJson(TakeoverError):
    """A JSON column whose text is not JSON: its row is reported and left out."""


def parse_json(text: str | None) -> t.Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise BadJson(f"its {{column}} is not JSON ({error.msg} at character {error.pos})"
                      ) from None


def utc(moment: datetime.datetime | None) -> datetime.datetime | None:
    """Murano's times: naive, in UTC."""
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


class MuranoDatabase:
    """The tables of the Murano database at ``url``, read once each."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = sa.make_url(url) if "://" in url else None
        if parsed is not None and parsed.get_backend_name() == "sqlite" and parsed.database \
                and not os.path.isfile(parsed.database):
            # SQLite would make an empty database there; a mistyped path says so instead
            raise TakeoverError(f"no SQLite database at {parsed.database}")
        try:
            self.engine = sa.create_engine(url)
        except ImportError as error:
            # laguna installs one driver per database: psycopg, and PyMySQL for
            # MySQL/MariaDB (mysql+pymysql://); another one is the operator's to add
            parsed = sa.make_url(url)
            hint = (": install it beside laguna, or use mysql+pymysql://, whose driver "
                    "laguna installs" if parsed.get_backend_name() in ("mysql", "mariadb")
                    else ": install it beside laguna")
            raise TakeoverError(f"the database driver of {parsed.drivername} is not "
                                f"installed ({error.name}){hint}") from None
        except sa.exc.ArgumentError as error:
            raise TakeoverError(f"{url!r} is not a database URL laguna can open: {error}"
                                ) from None
        self.meta = sa.MetaData()
        try:
            self.meta.reflect(self.engine)
        except sa.exc.SQLAlchemyError as error:
            self.engine.dispose()
            raise TakeoverError(f"cannot read the Murano database: {error}") from None
        missing = [name for name in REQUIRED if name not in self.meta.tables]
        if missing:
            self.engine.dispose()
            raise TakeoverError("not a Murano database (migration head 010 to 016): "
                                f"no table {', '.join(missing)}")
        self.head = self._head()

    def _head(self) -> str:
        head = None
        if "alembic_version" in self.meta.tables:
            with self.engine.connect() as connection:
                head = connection.execute(
                    sa.select(self.meta.tables["alembic_version"].c.version_num)).scalar()
        if head not in HEADS:
            self.engine.dispose()
            raise TakeoverError(f"the Murano database is at migration head {head or 'none'}; "
                                f"laguna reads heads {HEADS[0]} to {HEADS[-1]}")
        return str(head)

    def rows(self, name: str, *order: str) -> t.Iterator[Row]:
        """Every row of table ``name``, ordered by the columns ``order``, a few at
        a time (a package row holds its archive: a catalog is not read whole)."""
        table = self.meta.tables[name]
        query = sa.select(table).order_by(*(table.c[column] for column in order))
        with self.engine.connect() as connection:
            for row in connection.execution_options(yield_per=20).execute(query):
                yield dict(row._mapping)

    def has_column(self, table: str, column: str) -> bool:
        return column in self.meta.tables[table].c

    def names_by(self, link: str, names: str, target: str) -> dict[str, list[str]]:
        """``package_id -> [names]`` through the link table ``link`` whose column
        ``target`` points at table ``names`` (tags, categories)."""
        link_table = self.meta.tables[link]
        named = self.meta.tables[names]
        query = (sa.select(link_table.c.package_id, named.c.name)
                 .join(named, named.c.id == link_table.c[target])
                 .order_by(link_table.c.package_id, named.c.name))
        found: dict[str, list[str]] = {}
        with self.engine.connect() as connection:
            for package_id, name in connection.execute(query):
                found.setdefault(package_id, []).append(name)
        return found

    def dispose(self) -> None:
        self.engine.dispose()
