"""Blueprint languages plugged into the deployment layer (laguna.deploy).

Each sub-package implements :class:`laguna.deploy.frontend.Frontend`; the CLI
registers the built-in ones explicitly (:func:`builtin_frontends`).
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:
    from laguna.deploy.frontend import Frontend


def builtin_frontends() -> list[Frontend]:
    """The front ends laguna ships with, in the order they are asked."""
    from laguna.frontends.assembly import AssemblyFrontend
    from laguna.frontends.muranopl import MuranoPlFrontend
    from laguna.frontends.tosca.frontend import ToscaFrontend
    # TOSCA and assembly first: each recognises its files by a mark
    # (tosca_definitions_version; a name assembly::...), MuranoPL takes any other yaml
    return [ToscaFrontend(), AssemblyFrontend(), MuranoPlFrontend()]
