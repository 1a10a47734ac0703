"""Assembly and resource descriptors (IBM CP4NA's), laguna's third blueprint language.

Modules, one stage each: :mod:`.names` (naming rules), :mod:`.descriptor`
(grammar as data, loading with spans), :mod:`.values` (types and ``${}``),
:mod:`.catalog` (``-l`` folders, version ranges, dynamicType),
:mod:`.topology` (the wanted instances and every check), :mod:`.engine`
(intents), :mod:`.drivers` (the ``shell`` lifecycle driver) and
:mod:`.frontend` (the deployment layer's protocol). See docs/DESCRIPTORS.md.
"""

from laguna.frontends.assembly.frontend import (
    LANGUAGE,
    AssemblyFrontend,
    AssemblyView,
    assembly_json,
)

__all__ = ["LANGUAGE", "AssemblyFrontend", "AssemblyView", "assembly_json"]
