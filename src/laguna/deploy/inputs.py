"""``--inputs FILE``: a blueprint's input values, the same file for every language.

A YAML map of names to values (so JSON too: JSON is YAML), read with the
bounded loader package files go through (aliases, depth and size limited),
whatever language then converts the values to the types it declares.
"""

from __future__ import annotations

import typing as t
from pathlib import Path

from laguna.errors import LagunaError
from laguna.yamlio.loader import load_all, plain

#: an inputs file larger than this is refused before it is parsed
MAX_INPUTS_BYTES = 1024 * 1024


class InputsFileError(LagunaError):
    """Why ``--inputs FILE`` holds no map of values; each front end gives it its kind."""

    code = "LAG-E1004"


def read_inputs_file(path: Path) -> dict[str, t.Any]:
    """The map ``path`` holds (an empty file: no values)."""
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_INPUTS_BYTES + 1)
    except OSError as error:
        raise InputsFileError(f"--inputs {path}: {error.strerror or error}") from None
    if len(data) > MAX_INPUTS_BYTES:
        raise InputsFileError(f"--inputs {path}: larger than {MAX_INPUTS_BYTES} bytes")
    try:
        documents = load_all(data.decode("utf-8"), str(path))
    except (LagunaError, UnicodeDecodeError) as error:
        raise InputsFileError(f"--inputs {path}: {error}") from None
    if not documents:
        return {}
    value = plain(documents[0])
    if len(documents) > 1 or not isinstance(value, dict):
        raise InputsFileError(f"--inputs {path}: expected one map of input names to values")
    return value
