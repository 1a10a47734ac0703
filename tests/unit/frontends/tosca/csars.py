"""CSAR archives for the tests: zips written from a map of paths to texts."""

from __future__ import annotations

import io
import zipfile


def zip_of(files: dict[str, str]) -> bytes:
    """A zip holding ``files`` (path -> text) as given, ``..`` and all."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()
