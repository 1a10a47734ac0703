"""Request statistics of this process, for ``GET /v1/stats``.

Kept in memory per process (the original kept a row per API host in its
database, refreshed every minute): counts since start, errors, the average
response time and requests per project.
"""

from __future__ import annotations

import collections
import datetime
import json
import os
import socket
import threading
import time
import typing as t


class RequestStats:
    def __init__(self, clock: t.Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.created = datetime.datetime.now(datetime.timezone.utc)
        self.requests = 0
        self.errors = 0
        self.total_time = 0.0
        self.per_project: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()
        self._cpu = (time.process_time(), clock())

    def record(self, project: str | None, seconds: float, error: bool) -> None:
        with self._lock:
            self.requests += 1
            self.total_time += seconds
            if error:
                self.errors += 1
            if project:
                self.per_project[project] += 1

    def snapshot(self) -> dict[str, t.Any]:
        """The original's ``apistats`` row for this host."""
        with self._lock:
            now = self.clock()
            uptime = max(now - self.started, 1e-9)
            cpu_time, at = self._cpu
            spent = time.process_time() - cpu_time
            cpu_percent = round(100.0 * spent / max(now - at, 1e-9), 1)
            self._cpu = (time.process_time(), now)
            return {
                "id": 1,
                "host": socket.gethostname(),
                "created": self.created.isoformat(),
                "updated": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "request_count": self.requests,
                "error_count": self.errors,
                "average_response_time": (self.total_time / self.requests
                                          if self.requests else 0.0),
                # a JSON text, as the original stored and answered it
                "requests_per_tenant": json.dumps(dict(self.per_project)),
                "requests_per_second": self.requests / uptime,
                "errors_per_second": self.errors / uptime,
                "cpu_count": os.cpu_count() or 1,
                "cpu_percent": cpu_percent,
            }
