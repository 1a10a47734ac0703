"""What a laguna process sets up once, at its entry point.

The engine never changes process-wide state: constructing an ``Executor``
leaves the interpreter alone, and MuranoPL's call depth is bounded by the
engine's own counter (``Limits.call_depth``). A MuranoPL call takes about
ten Python frames, more inside nested blocks, so the interpreter's default
recursion limit (1000) would end deep but legal MuranoPL code before the
engine's own limit does. Each entry point (the `laguna` command, a server,
a worker, the test suite) calls :func:`prepare` once.
"""

from __future__ import annotations

import sys

#: room for the default call depth (400) times the Python frames of a call
RECURSION_LIMIT = 20_000


def prepare() -> None:
    """Raise the interpreter's recursion limit to :data:`RECURSION_LIMIT`
    (never lower it: the host may have chosen more)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


__all__ = ["RECURSION_LIMIT", "prepare"]
