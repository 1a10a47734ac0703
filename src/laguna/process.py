"""What a laguna process sets up once, at its entry point.

The engine never changes process-wide state: constructing an ``Executor``
leaves the interpreter alone, and MuranoPL's call depth is bounded by the
engine's own counter (``Limits.call_depth``). A MuranoPL call takes about
ten Python frames, more inside nested blocks, so the interpreter's default
recursion limit (1000) would end deep but legal MuranoPL code before the
engine's own limit does. Each entry point (the `laguna` command, a server,
a worker, the test suite) calls :func:`prepare` once.

A deployment allocates containers by the hundred thousand (frozen values,
templates, yaql contexts) over a large long-lived heap (classes, compiled
code, the stack's template), and every full collection of Python's cycle
collector walks all of it: with the default thresholds they took a tenth of
a deploy's CPU time. Objects' lives in MuranoPL never depend on that
collector (``lang/lifecycle.py`` decides them), so :func:`prepare` makes full
collections rarer (:data:`FULL_COLLECTION_THRESHOLD`).
"""

from __future__ import annotations

import gc
import sys

#: room for the default call depth (400) times the Python frames of a call
RECURSION_LIMIT = 20_000
#: collections of the middle generation between two full ones (Python's default: 10)
FULL_COLLECTION_THRESHOLD = 100


def prepare() -> None:
    """Raise the interpreter's recursion limit to :data:`RECURSION_LIMIT` and
    the cycle collector's last threshold to :data:`FULL_COLLECTION_THRESHOLD`
    (never lower either: the host may have chosen more)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    first, second, third = gc.get_threshold()
    if third < FULL_COLLECTION_THRESHOLD:
        gc.set_threshold(first, second, FULL_COLLECTION_THRESHOLD)


__all__ = ["FULL_COLLECTION_THRESHOLD", "RECURSION_LIMIT", "prepare"]


def peak_memory_kib() -> int:
    """This process's peak resident memory in KiB, counted from its last exec.

    ``getrusage(RUSAGE_SELF).ru_maxrss`` is not that: Linux carries the
    forking parent's peak over into it (a subprocess of a 500 MiB test worker
    reports 500 MiB before it has done anything). ``VmHWM`` in
    /proc/self/status belongs to the address space made at exec; where there
    is no /proc, ``ru_maxrss`` is the best there is."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
