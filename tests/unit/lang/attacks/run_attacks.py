"""Run each method of t.attacks.Attacks (and of t.attacks.LegacyAttacks, a
Format 1.0 package, when its folder is given) in its own executor and print
one JSON line per method: how it ended, in how many seconds. Run by
test_limits.py in a subprocess bounded in memory and time; argv: the package
folders (joined by os.pathsep), then METHOD=LIMITS pairs giving a method other
limits: a number (the execution time limit) or a JSON object of limits."""

from __future__ import annotations

import json
import os
import resource
import sys
import time

MEMORY_BOUND = 2 * 2**30
resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))

from laguna import process  # noqa: E402
from laguna.lang.errors import MuranoPlError  # noqa: E402
from laguna.lang.executor import Executor  # noqa: E402
from laguna.testing.packages import core_registry, read_package_dir  # noqa: E402
from laguna.yaql.engine import Limits  # noqa: E402

process.prepare()
registry = core_registry()
classes = []
for folder in sys.argv[1].split(os.pathsep):
    package = read_package_dir(folder)
    registry.add(package)
    classes.append(registry.find("t.attacks." + os.path.basename(folder)))
given = {method: json.loads(value) for method, value in
         (arg.split("=", 1) for arg in sys.argv[2:])}
for cls, method in [(cls, method) for cls in classes for method in cls.methods]:
    settings = given.get(method, 600)
    limits = Limits.from_settings(settings if isinstance(settings, dict)
                                  else {"execution_seconds": float(settings)})
    executor = Executor(registry, limits)
    obj = executor.new_object(cls, None, {})
    started = time.monotonic()
    record: dict[str, object] = {"method": method}
    try:
        record["result"] = repr(executor.call(obj, method))[:200]
    except MuranoPlError as error:
        record["names"] = error.names
        record["message"] = error.message
    record["seconds"] = time.monotonic() - started
    print(json.dumps(record), flush=True)
print(json.dumps({"maxrss_kib": process.peak_memory_kib()}))
