"""The MuranoPL core library (package io.murano): its class files and the
Python implementation of its native methods."""

from __future__ import annotations

import pathlib

from laguna.corelib.native import bind_natives

META_DIR = pathlib.Path(__file__).parent / "meta"
CORE_PACKAGE_DIR = META_DIR / "io.murano"
# the application framework library (Format 1.4, as the original shipped it);
# packages that require it get it from here when no other source has it
APPLICATIONS_PACKAGE_DIR = META_DIR / "io.murano.applications"

__all__ = ["APPLICATIONS_PACKAGE_DIR", "CORE_PACKAGE_DIR", "bind_natives"]
