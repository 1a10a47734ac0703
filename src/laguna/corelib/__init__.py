"""The MuranoPL core library (package io.murano): its class files and the
Python implementation of its native methods."""

from __future__ import annotations

import pathlib

from laguna.corelib.native import bind_natives

META_DIR = pathlib.Path(__file__).parent / "meta"
CORE_PACKAGE_DIR = META_DIR / "io.murano"

__all__ = ["CORE_PACKAGE_DIR", "bind_natives"]
