"""laguna's settings, read once from an environment mapping.

Functions never read ``os.environ``; the command line builds a
:class:`Config` from it at start-up and passes it on, and tests build one
from a plain dict.
"""

from __future__ import annotations

import dataclasses
import os
import typing as t
from pathlib import Path

DATABASE_URL_VAR = "LAGUNA_DATABASE_URL"
WORKDIR_VAR = "LAGUNA_WORKDIR"
#: DIR/.laguna/laguna.sqlite: the working directory's store, its catalog too
STATE_DIR = ".laguna"
STORE_FILE = "laguna.sqlite"
CLASS_CONFIGS_VAR = "LAGUNA_CLASS_CONFIGS"
ENGINE_SETTINGS_VAR = "LAGUNA_ENGINE_SETTINGS"


def default_data_dir(environ: t.Mapping[str, str]) -> Path:
    """Where laguna keeps its data: ``$XDG_DATA_HOME/laguna`` or ``~/.local/share/laguna``."""
    base = environ.get("XDG_DATA_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(base) / "laguna"


def resolve_workdir(option: str | os.PathLike[str] | None, environ: t.Mapping[str, str],
                    cwd: Path) -> Path:
    """The working directory: the option, else ``$LAGUNA_WORKDIR``, else ``cwd``."""
    chosen = option if option not in (None, "") else environ.get(WORKDIR_VAR) or cwd
    return (cwd / Path(chosen)).resolve()


def workdir_store(workdir: Path) -> Path:
    """The store file of a working directory (which holds its catalog)."""
    return workdir / STATE_DIR / STORE_FILE


def sqlite_url(path: str | os.PathLike[str]) -> str:
    """The SQLAlchemy URL of an SQLite file."""
    return f"sqlite:///{Path(path).absolute().as_posix()}"


@dataclasses.dataclass(frozen=True)
class Config:
    """Settings; every field has a default that works on one machine."""

    #: the catalog's URL (``$LAGUNA_DATABASE_URL``); None: the working
    #: directory's store, the one catalog every command and the server share
    database_url: str | None = None
    #: the folder of per-class configuration files (values of `Usage: Config`
    #: properties, see :mod:`laguna.lang.classconfig`); None: no such files
    class_configs: Path | None = None
    #: a YAML/JSON file of the settings MuranoPL's config() reads (groups of
    #: settings, see laguna.lang.functions.host); None: no settings
    engine_settings: Path | None = None

    @classmethod
    def from_environ(cls, environ: t.Mapping[str, str]) -> Config:
        """Settings from an environment (``os.environ`` at the program's edge)."""
        url = environ.get(DATABASE_URL_VAR) or None
        configs = environ.get(CLASS_CONFIGS_VAR)
        settings = environ.get(ENGINE_SETTINGS_VAR)
        return cls(database_url=url,
                   class_configs=Path(configs) if configs
                   else default_data_dir(environ) / "class-configs",
                   engine_settings=Path(settings) if settings else None)
