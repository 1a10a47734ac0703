"""Class configuration files in a folder: the file-reading side of
:mod:`laguna.lang.classconfig`, which parses what is read here."""

from __future__ import annotations

import os
import pathlib

from laguna.lang.classconfig import ClassConfigError, ClassConfigs, ConfigFile


class ConfigFolder:
    """A :class:`~laguna.lang.classconfig.ConfigFileSource` over one folder."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = pathlib.Path(path)

    def __repr__(self) -> str:
        return f"ConfigFolder({str(self.path)!r})"

    def read(self, name: str) -> ConfigFile | None:
        path = self.path / name
        if not path.is_file():
            return None
        try:
            return ConfigFile(path, path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ClassConfigError(path, f"cannot be read ({exc})") from exc


class ClassConfigFolder(ClassConfigs):
    """The class configuration files of one folder, each read once."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(ConfigFolder(path))
        self.path = pathlib.Path(path)


__all__ = ["ClassConfigFolder", "ConfigFolder"]
