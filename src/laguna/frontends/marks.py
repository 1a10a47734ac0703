"""How a file shows which blueprint language it is written in, read without
importing that language's front end.

The deployment layer asks each registered front end in turn whether it
recognises a file; TOSCA and assembly descriptors are recognised by a mark
in the text (MuranoPL takes any other model). Importing the TOSCA and
assembly front ends costs a command about a quarter of a second, so the
built-in ones are registered deferred (:mod:`laguna.frontends.deferred`)
and recognise through these functions, and a MuranoPL deploy never imports
them.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

#: the metadata file that makes a folder or zip a CSAR
TOSCA_META = "TOSCA-Metadata/TOSCA.meta"
_TOSCA_MARK = re.compile(rb"^tosca_definitions_version\s*:", re.MULTILINE)
#: a descriptor's name line (any type: a wrong one is refused with its own kind)
_ASSEMBLY_MARK = re.compile(r"^name:\s*['\"]?[A-Za-z][\w.-]*::", re.MULTILINE)


def is_tosca(path: Path) -> bool:
    """A yaml file with ``tosca_definitions_version`` at its top level, or a CSAR (a
    folder or zip with TOSCA-Metadata/TOSCA.meta or such a yaml at its root)."""
    try:
        if path.is_dir():
            if (path / TOSCA_META).is_file():
                return True
            return any(_tosca_marked(p.read_bytes()) for p in path.iterdir()
                       if p.is_file() and p.suffix in (".yaml", ".yml"))
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                if TOSCA_META in names:
                    return True
                # the head of each root yaml only: an upload's member may be a zip bomb
                return any(_tosca_marked(archive.open(n).read(65536)) for n in names
                           if "/" not in n and n.endswith((".yaml", ".yml")))
        if path.is_file() and path.suffix in (".yaml", ".yml"):
            with path.open("rb") as handle:
                return _tosca_marked(handle.read(65536))
    except (OSError, zipfile.BadZipFile):
        return False
    return False


def _tosca_marked(data: bytes) -> bool:
    return _TOSCA_MARK.search(data) is not None


def is_assembly(path: Path) -> bool:
    """A yaml file whose top-level ``name`` is an assembly's (``assembly::...``,
    or any ``type::name``), or an assembly descriptor in an lmctl package
    (``Definitions/lm/assembly.yaml``), which may leave its name out."""
    if path.suffix not in (".yaml", ".yml") or not path.is_file():
        return False
    if path.stem == "assembly" and path.parent.name == "lm" \
            and path.parent.parent.name == "Definitions":
        return True
    try:
        return _ASSEMBLY_MARK.search(path.read_text(encoding="utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False
