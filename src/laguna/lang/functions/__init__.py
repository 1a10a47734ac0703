"""YAQL functions the engine adds for MuranoPL code, on top of yaql's standard library.

One module per concept, each ending with ``register(context, ...)`` in the
style of yaql's standard library:

- :mod:`.murano`: data functions every package gets (``base64encode``,
  ``bind``, ``patch``, ``pselect``, ``randomName`` ...);
- :mod:`.host`: functions answered by the host running the engine
  (``config``, ``decryptData``), through a :class:`~.host.Host`;
- :mod:`.legacy`: what packages of Format 1.0 and 1.1 also get.

:func:`register` puts them in a layer of their own above a root context, as
the original engine linked its function context to yaql's root: names found
there win over yaql's, which matters for the legacy extension methods.
"""

from __future__ import annotations

import typing as t

from laguna.lang.functions import host, legacy, murano
from laguna.lang.functions.host import Host

__all__ = ["Host", "register"]


def register(context: t.Any, legacy_mode: bool) -> t.Any:
    """A child of ``context`` (a yaql root context) holding the engine's functions."""
    layer = context.create_child_context()
    murano.register(layer)
    host.register(layer)
    if legacy_mode:
        legacy.register(layer, context)
    return layer
