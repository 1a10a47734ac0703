"""Request statistics of this process, for ``GET /v1/stats``.

Kept in memory per process (the original kept a row per API host in its
database, refreshed every minute): counts since start, errors, the average
response time and requests per project. The original's own rows, when
``laguna takeover murano`` brought them, are history (:func:`history_view`):
shown before this host's, as they were when Murano last wrote them.

A project sees its own counts only; an admin sees the whole host's and
every project's (the original showed every project's counts to anyone).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import os
import socket
import threading
import time
import typing as t

from laguna.api.timestamps import timestamp
from laguna.store.models import ApiStatRecord


@dataclasses.dataclass
class Counts:
    """Requests answered, of which errors (500 and above), and the time they took."""

    requests: int = 0
    errors: int = 0
    total_time: float = 0.0

    def add(self, seconds: float, error: bool) -> None:
        self.requests += 1
        self.total_time += seconds
        self.errors += 1 if error else 0


class RequestStats:
    def __init__(self, clock: t.Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.created = datetime.datetime.now(datetime.timezone.utc)
        #: every request, a project's or not (401s, ``GET /``)
        self.host = Counts()
        self.per_project: collections.defaultdict[str, Counts] = \
            collections.defaultdict(Counts)
        self._lock = threading.Lock()
        self._cpu = (time.process_time(), clock())

    def record(self, project: str | None, seconds: float, error: bool) -> None:
        with self._lock:
            self.host.add(seconds, error)
            if project:
                self.per_project[project].add(seconds, error)

    def snapshot(self, project: str | None = None, row_id: int = 1) -> dict[str, t.Any]:
        """The original's ``apistats`` row for this host: the counts of
        ``project`` alone, or (None, for admins) of the host and every project."""
        with self._lock:
            now = self.clock()
            uptime = max(now - self.started, 1e-9)
            cpu_time, at = self._cpu
            spent = time.process_time() - cpu_time
            cpu_percent = round(100.0 * spent / max(now - at, 1e-9), 1)
            self._cpu = (time.process_time(), now)
            if project is None:
                counts = self.host
                per_tenant = {name: c.requests for name, c in self.per_project.items()}
            else:
                counts = self.per_project.get(project, Counts())
                per_tenant = {project: counts.requests} if counts.requests else {}
            return {
                "id": row_id,
                "host": socket.gethostname(),
                "created": self.created.isoformat(),
                "updated": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "request_count": counts.requests,
                "error_count": counts.errors,
                "average_response_time": (counts.total_time / counts.requests
                                          if counts.requests else 0.0),
                # a JSON text, as the original stored and answered it
                "requests_per_tenant": json.dumps(per_tenant),
                "requests_per_second": counts.requests / uptime,
                "errors_per_second": counts.errors / uptime,
                "cpu_count": os.cpu_count() or 1,
                "cpu_percent": cpu_percent,
            }


def history_view(record: ApiStatRecord) -> dict[str, t.Any]:
    """A taken-over ``apistats`` row as the original answered it."""
    return {"id": record.id, "host": record.host, "created": timestamp(record.created),
            "updated": timestamp(record.updated), "request_count": record.request_count,
            "error_count": record.error_count,
            "average_response_time": record.average_response_time,
            "requests_per_tenant": record.requests_per_tenant,
            "requests_per_second": record.requests_per_second,
            "errors_per_second": record.errors_per_second, "cpu_count": record.cpu_count,
            "cpu_percent": record.cpu_percent}
