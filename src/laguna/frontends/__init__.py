"""Blueprint languages plugged into the deployment layer (laguna.deploy).

Each sub-package implements :class:`laguna.deploy.frontend.Frontend`; the CLI
registers the built-in ones explicitly (:func:`builtin_frontends`).
"""

from __future__ import annotations

import typing as t

if t.TYPE_CHECKING:
    from laguna.deploy.frontend import Frontend


def builtin_frontends(confined: bool = False) -> list[Frontend]:
    """The front ends laguna ships with, in the order they are asked. TOSCA's
    and assembly's are imported when a blueprint of theirs is first met
    (:mod:`laguna.frontends.deferred`). ``confined``: for the API's engine,
    whose machine runs nobody's scripts: an assembly's resource whose scripts
    would run here is refused in every operation (deploy, undeploy, actions,
    watch passes), not only in the deploy."""
    from laguna.frontends import marks
    from laguna.frontends.deferred import DeferredFrontend
    from laguna.frontends.muranopl import MuranoPlFrontend
    # TOSCA and assembly first: each recognises its files by a mark
    # (tosca_definitions_version; a name assembly::...), MuranoPL takes any other yaml
    return [DeferredFrontend("tosca", marks.is_tosca, _tosca),
            DeferredFrontend("assembly", marks.is_assembly,
                             _confined_assembly if confined else _assembly),
            MuranoPlFrontend()]


def _tosca() -> Frontend:
    from laguna.frontends.tosca.frontend import ToscaFrontend
    return ToscaFrontend()


def _assembly() -> Frontend:
    from laguna.frontends.assembly import AssemblyFrontend
    return AssemblyFrontend()


def _confined_assembly() -> Frontend:
    from laguna.frontends.assembly import AssemblyFrontend
    return AssemblyFrontend(confined=True)
