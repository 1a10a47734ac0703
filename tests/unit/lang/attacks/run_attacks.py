"""Run each method of t.attacks.Attacks in its own executor and print one JSON
line per method: how it ended, in how many seconds. Run by test_limits.py in a
subprocess bounded in memory and time; argv: the package folder, then
METHOD=SECONDS pairs giving a method a shorter execution time limit."""

from __future__ import annotations

import json
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
registry.add(read_package_dir(sys.argv[1]))
cls = registry.find("t.attacks.Attacks")
seconds = dict(arg.split("=") for arg in sys.argv[2:])
for method in cls.methods:
    limits = Limits(execution_seconds=float(seconds.get(method, 600)))
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
